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

    /// Both of Ben's paths go away at once (his WebSocket cut, every datagram of his media
    /// dropped both ways), then come back: his session resumes, the SDK offers again, and
    /// Ann's media reaches him again, same room, with no app code.
    @Test func mediaComesBackAfterBothPathsAreCut() async throws {
        let server = try await TestServer.start { configuration in
            configuration.mediaAddress = "127.0.0.2"
            configuration.mediaBindAddress = "127.0.0.1"
        }
        let relay = try await LossyUDPRelay.start(
            listen: "127.0.0.2", port: server.server.mediaPort, upstream: "127.0.0.1", downLoss: 0, seed: 1)
        let proxy = try await TCPProxy.start(to: server.port)
        let host = try await server.client("Teacher", role: .host)
        let ann = try await server.client("Ann")
        let ben = try await server.client("Ben", url: proxy.url)
        let annID = try ann.id
        let room = try #require(try await host.session.breakoutRooms.create(count: 1).first)
        try await #require(host.session.subsessionManager).assign([annID, try ben.id], to: room.id)
        try await eventually("both in the room") { try ben.snapshot.myself.location == .room(room.id) }
        try await ann.session.audioHelper.start()
        try await ann.session.videoHelper.start()
        try await ben.session.audioHelper.start(muted: true)
        let received = ReceivedMedia(ben.session, from: annID)
        let publisher = TestPublisher.start(ann.session)
        defer { publisher.cancel() }
        try await received.waitFor(audio: 30, video: 3, "Ann's media before the cut")
        try await ben.log.next("Ben connected by the join") { $0.isConnectionState(.connected) ? true : nil }

        relay.blackout = true
        proxy.cut(refusingNew: true)
        try await ben.log.next(seconds: 30, "Ben reconnecting") { $0.isConnectionState(.reconnecting) ? true : nil }
        try await Task.sleep(for: .milliseconds(500))
        let during = received.count
        relay.blackout = false
        proxy.reopen()
        try await ben.log.next(seconds: 30, "Ben connected again") { $0.isConnectionState(.connected) ? true : nil }
        let back = ContinuousClock.now
        try await received.waitFor(audio: 1, video: 1, after: during, "Ann's first frames after the cut")
        // Printed, not asserted (no clocks in tests).
        print("SDKMediaLossTests: Ann's media back at Ben \(ContinuousClock.now - back) after he resumed")
        let after = received.count
        try await received.waitFor(audio: 60, video: 5, after: after, "Ann's media after the cut")
        try SDKMediaTests.expectToneAndColour(received, after: after, "after the cut")
        #expect(try ben.snapshot.myself.location == .room(room.id), "the same room")

        publisher.cancel()
        _ = try? await publisher.value
        await proxy.stop()
        await relay.stop()
        await server.stop()
    }
}
