import Caucus
import CaucusCore
import Foundation
import Testing

/// The SDK's media through a lossy path: 5 % of what the server sends Ben is dropped (by a
/// relay in front of the media port). Ben's SDK asks for the missing video again (NACK), the
/// server repairs from its retransmission cache, and Ann's picture still decodes to its
/// colour; what could not be completed is never delivered.
@Suite(.serialized) struct SDKMediaLossTests {
    @Test func lostVideoIsAskedForAgainAndRepairedThroughTheServer() async throws {
        // The server binds 127.0.0.1 and announces 127.0.0.2, where the relay listens.
        let server = try await TestServer.start { configuration in
            configuration.mediaAddress = "127.0.0.2"
            configuration.mediaBindAddress = "127.0.0.1"
        }
        let relay = try await LossyUDPRelay.start(
            listen: "127.0.0.2", port: server.server.mediaPort, upstream: "127.0.0.1", downLoss: 0.05, seed: 25)
        let ann = try await server.client("Ann")
        let ben = try await server.client("Ben")
        let annID = try ann.id
        try await ann.session.audioHelper.start()
        try await ann.session.videoHelper.start()
        try await ben.session.audioHelper.start(muted: true)
        let received = ReceivedMedia(ben.session, from: annID)
        let publisher = TestPublisher.start(ann.session)
        defer { publisher.cancel() }

        try await received.waitFor(audio: 100, video: 40, "Ann's media through the lossy path")
        try await eventually("some dropped packets repaired") { relay.counts.repairsOfDropped >= 3 }
        let counts = relay.counts
        #expect(counts.droppedDown > 0)
        // Every picture delivered decodes; the last is Ann's colour.
        try SDKMediaTests.expectToneAndColour(received, after: 0, "through 5 % loss")
        print(
            "SDKMediaLossTests: \(counts.forwardedDown) forwarded, \(counts.droppedDown) dropped,",
            "\(counts.repairsOfDropped) repaired; Ben got \(received.video().count) video frames")

        publisher.cancel()
        _ = try? await publisher.value
        await relay.stop()
        await server.stop()
    }
}
