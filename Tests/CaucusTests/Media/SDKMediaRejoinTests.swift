import Caucus
import CaucusCore
import Foundation
import Testing

/// A session object that leaves and joins again gets its media again: its helpers start (they
/// threw "Not in a session." while connected, the media of the first join having ended for
/// good), and media flows both ways, from it and to it, over a new peer.
@Suite(.serialized) struct SDKMediaRejoinTests {
    @Test func mediaFlowsBothWaysAfterLeavingAndJoiningAgainOnTheSameSession() async throws {
        let server = try await TestServer.start()
        let ann = try await server.client("Ann")
        let ben = try await server.client("Ben")
        let benID = try ben.id

        // The first join: both publish, each receives the other.
        let firstAnnID = try ann.id
        try await Self.startMedia(ann)
        try await Self.startMedia(ben)
        let annPublisher = TestPublisher.start(ann.session)
        let benPublisher = TestPublisher.start(ben.session)
        defer {
            annPublisher.cancel()
            benPublisher.cancel()
        }
        let firstAtBen = ReceivedMedia(ben.session, from: firstAnnID)
        let firstAtAnn = ReceivedMedia(ann.session, from: benID)
        try await firstAtBen.waitFor(audio: 20, video: 2, "Ann's media at Ben before she leaves")
        try await firstAtAnn.waitFor(audio: 20, video: 2, "Ben's media at Ann before she leaves")

        // Ann leaves, and joins again on the same session object, as a new user.
        try await ann.session.leave()
        let (audioAfterLeave, videoAfterLeave) = (await ann.session.audioHelper.isStarted, await ann.session.videoHelper.isStarted)
        #expect(!audioAfterLeave && !videoAfterLeave)
        try await within("Ann joins again") {
            try await ann.session.join(
                url: server.url, sessionName: "Class", userName: "Ann", token: try server.token(session: "Class", role: .participant))
        }
        let annID = try ann.id
        #expect(annID != firstAnnID, "a new join is a new user")
        #expect(ann.session.connectionState == .connected)

        // Her helpers start again, and her media reaches Ben: she publishes.
        let atBen = ReceivedMedia(ben.session, from: annID)
        let atAnn = ReceivedMedia(ann.session, from: benID)
        try await Self.startMedia(ann)
        let (audioOn, videoOn) = (await ann.session.audioHelper.isStarted, await ann.session.videoHelper.isStarted)
        #expect(audioOn && videoOn)
        _ = try await ben.log.next("Ann's publication after her new join") {
            if case .mediaChanged(let user) = $0, user.id == annID, user.publishing == [.audio, .video] { true } else { nil }
        }
        try await atBen.waitFor(audio: 60, video: 5, "Ann's media at Ben after her new join")
        try SDKMediaTests.expectToneAndColour(atBen, after: 0, "Ann at Ben after the new join")
        // Ben's reaches her: she receives.
        try await atAnn.waitFor(audio: 60, video: 5, "Ben's media at Ann after her new join")
        try SDKMediaTests.expectToneAndColour(atAnn, after: 0, "Ben at Ann after the new join")

        annPublisher.cancel()
        benPublisher.cancel()
        _ = try? await annPublisher.value
        _ = try? await benPublisher.value
        try await ann.session.leave()
        try await ben.session.leave()
        await server.stop()
    }

    private static func startMedia(_ client: Client) async throws {
        try await within("audio starts") { try await client.session.audioHelper.start() }
        try await within("video starts") { try await client.session.videoHelper.start() }
    }
}
