import CaucusCore
import Foundation
import Testing

@testable import Caucus

/// Two users of a session whose SDKs picked the same SSRC: the server refuses the second
/// offer (7102: another user sends from it), and the SDK offers once more with SSRCs of its
/// own, so the user's media starts anyway and the first user's is untouched.
@Suite(.serialized) struct SDKMediaSSRCCollisionTests {
    @Test func anOfferRefusedForAnSSRCAnotherUserSendsFromIsMadeAgainWithOthers() async throws {
        let server = try await TestServer.start()
        let ann = try await server.client("Ann")
        let ben = try await server.client("Ben")
        let (annID, benID) = (try ann.id, try ben.id)
        // Ben's first offer would send from 1111, Ann's.
        ann.session.media.ssrcs.withLockedValue { $0.queued = [1111, 2222, 3333] }
        ben.session.media.ssrcs.withLockedValue { $0.queued = [4444, 1111, 5555] }
        try await ann.session.audioHelper.start()
        try await ben.session.audioHelper.start()
        #expect(ann.session.media.ssrcs.withLockedValue { $0.offers } == 1)
        #expect(ben.session.media.ssrcs.withLockedValue { $0.offers } == 2, "refused once, offered again")

        // Both publish, and each hears the other: Ben's new SSRCs and Ann's first ones.
        let fromAnn = ReceivedMedia(ben.session, from: annID)
        let fromBen = ReceivedMedia(ann.session, from: benID)
        let publishers = [TestPublisher.start(ann.session), TestPublisher.start(ben.session, hertz: 660)]
        defer { publishers.forEach { $0.cancel() } }
        try await fromAnn.waitFor(audio: 60, video: 0, "Ann's tone at Ben")
        try await fromBen.waitFor(audio: 60, video: 0, "Ben's tone at Ann")
        let (annTone, benTone) = (try fromAnn.toneFrequency(), try fromBen.toneFrequency())
        #expect(abs(annTone - TestPublisher.toneHertz) / TestPublisher.toneHertz < 0.02, "Ann's tone is \(annTone) Hz")
        #expect(abs(benTone - 660) / 660 < 0.02, "Ben's tone is \(benTone) Hz")

        publishers.forEach { $0.cancel() }
        for publisher in publishers { _ = try? await publisher.value }
        await server.stop()
    }
}
