@testable import Caucus
import CaucusCore
import Foundation
import Testing

/// A user's WebSocket goes away while its media path stays up: the server keeps forwarding its
/// media both ways while its media peer lives (ICE consent), in the location the session gives
/// it, and its SDK keeps that peer when it resumes (no new offer). A move by the host while it
/// is away re-routes its media at once; a peer that dies too (its UDP cut as well) frees its
/// slots once its consent runs out.
@Suite(.serialized) struct SignallingStallMediaTests {
    /// The longest silence in `arrivals` from `start` to `end` (the edges count as arrivals).
    static func longestGap(_ arrivals: [ContinuousClock.Instant], from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> Duration {
        let times = [start] + arrivals.filter { $0 > start && $0 < end } + [end]
        return zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? .zero
    }

    static func seconds(_ duration: Duration) -> String { String(format: "%.3f s", Double(duration.components.attoseconds) / 1e18 + Double(duration.components.seconds)) }

    /// Whether the server's session holds `user`'s seat while it reconnects, as `observer` sees it.
    static func isAway(_ user: UserID, to observer: Client) -> Bool {
        (try? observer.snapshot.user(user)).flatMap { $0 }.map { !$0.isConnected } ?? false
    }

    /// Ann's WebSocket is cut, and her reconnection's WebSocket upgrades and then stalls for 3 s
    /// (the SDK gives it up after `connectTimeout`, 5 s, and resumes on the next), while her
    /// UDP media path stays up. Ann's audio reaches Ben, and Ben's reaches Ann, all along; the
    /// longest silence each way is printed. She resumes with the peer she had: no new offer.
    @Test func mediaFlowsBothWaysWhileTheWebSocketStalls() async throws {
        let server = try await TestServer.start()
        let proxy = try await TCPProxy.start(to: server.port)
        let ann = try await server.client("Ann", url: proxy.url)
        let ben = try await server.client("Ben")
        let (annID, benID) = (try ann.id, try ben.id)
        for client in [ann, ben] {
            try await client.session.audioHelper.start()
            try await client.session.videoHelper.start()
        }
        let atBen = ReceivedMedia(ben.session, from: annID)
        let atAnn = ReceivedMedia(ann.session, from: benID)
        let publishers = [TestPublisher.start(ann.session), TestPublisher.start(ben.session)]
        defer { for publisher in publishers { publisher.cancel() } }
        try await atBen.waitFor(audio: 50, video: 3, "Ann's media at Ben")
        try await atAnn.waitFor(audio: 50, video: 3, "Ben's media at Ann")
        try await ann.log.next("Ann connected by the join") { $0.isConnectionState(.connected) ? true : nil }
        let offers = proxy.serverICEUfrags.count

        let cut = ContinuousClock.now
        proxy.cut(then: .stallAfterUpgrade)
        try await ann.log.next(seconds: 30, "Ann reconnecting") { $0.isConnectionState(.reconnecting) ? true : nil }
        try await eventually("the server holds Ann's seat") { Self.isAway(annID, to: ben) }
        try await Task.sleep(for: .seconds(3))
        proxy.reopen()
        try await ann.log.next(seconds: 30, "Ann connected again") { $0.isConnectionState(.connected) ? true : nil }
        try await eventually("the server has Ann back") { !Self.isAway(annID, to: ben) }
        let resumed = ContinuousClock.now
        try await Task.sleep(for: .seconds(1))
        let end = ContinuousClock.now

        let annToBen = Self.longestGap(atBen.arrivals(of: .audio, since: cut), from: cut, to: end)
        let benToAnn = Self.longestGap(atAnn.arrivals(of: .audio, since: cut), from: cut, to: end)
        print(
            "SignallingStallMediaTests: away \(Self.seconds(resumed - cut)); longest audio gap Ann→Ben \(Self.seconds(annToBen)),",
            "Ben→Ann \(Self.seconds(benToAnn))")
        // Stopping the media while she is away costs at least the stalled attempt (5 s): half
        // of that tells the two apart on a loaded machine. The figures are in benchmarks.md.
        #expect(annToBen < .milliseconds(2_500), "Ann→Ben silent for \(annToBen)")
        #expect(benToAnn < .milliseconds(2_500), "Ben→Ann silent for \(benToAnn)")
        #expect(proxy.serverICEUfrags.count == offers, "resumed with the same peer: no new offer")
        let mark = atBen.count
        try await atBen.waitFor(audio: 30, video: 3, after: mark, "Ann's media after the resume")
        try SDKMediaTests.expectToneAndColour(atBen, after: mark, "after the stall")

        for publisher in publishers { publisher.cancel() }
        await proxy.stop()
        await server.stop()
    }

    /// While Ann is away (her WebSocket stalled, her media path up), the host moves her from
    /// her room (with Ben) to the main session: her media reaches the host at once, before she
    /// is back, and Ben no longer gets it. Once she resumes, her slot map shows nothing of Ben.
    @Test func aMoveWhileAwayReroutesHerMediaAtOnce() async throws {
        let server = try await TestServer.start()
        let proxy = try await TCPProxy.start(to: server.port)
        let host = try await server.client("Teacher", role: .host)
        let ann = try await server.client("Ann", url: proxy.url)
        let ben = try await server.client("Ben")
        let (annID, benID) = (try ann.id, try ben.id)
        let room = try #require(try await host.session.breakoutRooms.create(count: 1).first)
        let manager = try #require(host.session.subsessionManager)
        try await manager.assign([annID, benID], to: room.id)
        try await eventually("both in the room") { try ann.snapshot.myself.location == .room(room.id) && ben.snapshot.myself.location == .room(room.id) }
        try await host.session.audioHelper.start(muted: true)
        for client in [ann, ben] {
            try await client.session.audioHelper.start()
            try await client.session.videoHelper.start()
        }
        let atHost = ReceivedMedia(host.session, from: annID)
        let atBen = ReceivedMedia(ben.session, from: annID)
        let publishers = [TestPublisher.start(ann.session), TestPublisher.start(ben.session)]
        defer { for publisher in publishers { publisher.cancel() } }
        try await atBen.waitFor(audio: 30, video: 3, "Ann's media at Ben in the room")
        #expect(atHost.count == 0, "nothing of the room reaches the main session")
        try await ann.log.next("Ann connected by the join") { $0.isConnectionState(.connected) ? true : nil }

        proxy.cut(then: .stallAfterUpgrade)
        try await eventually("the server holds Ann's seat") { Self.isAway(annID, to: host) }
        let moved = ContinuousClock.now
        try await manager.returnToMain(annID)
        try await atHost.waitFor(audio: 10, video: 1, "Ann's media at the host after the move")
        let reached = try #require(atHost.firstArrival(of: .audio, since: moved))
        #expect(Self.isAway(annID, to: host), "her media moved before she was back")
        try await Task.sleep(for: .milliseconds(500))
        let stray = atBen.arrivals(of: .audio, since: ContinuousClock.now - .milliseconds(400))
        #expect(stray.isEmpty, "Ben still got \(stray.count) of Ann's audio frames after the move")
        print("SignallingStallMediaTests: Ann's audio at the host \(Self.seconds(reached - moved)) after the move, while she was away")

        proxy.reopen()
        try await ann.log.next(seconds: 30, "Ann connected again") { $0.isConnectionState(.connected) ? true : nil }
        #expect(try ann.snapshot.myself.location == .main)
        try await eventually("Ann's slot map shows nothing of Ben") {
            let users = ann.session.engine.mediaSlots.latest.values.compactMap { $0 }
            return !users.contains(benID)
        }
        for publisher in publishers { publisher.cancel() }
        await proxy.stop()
        await server.stop()
    }

    /// Ann's WebSocket and her media path go away together: the server keeps her slots in
    /// Ben's map while her peer's consent lasts, then (consent lost) frees them.
    @Test func aDeadPeerFreesItsSlotsOnceItsConsentRunsOut() async throws {
        // The SDK checks consent every 5 s: a consent timeout of 8 s keeps live peers alive.
        let consent = Duration.seconds(8)
        let server = try await TestServer.start { configuration in
            configuration.mediaAddress = "127.0.0.2"
            configuration.mediaBindAddress = "127.0.0.1"
            configuration.mediaConsentTimeout = consent
        }
        let relay = try await LossyUDPRelay.start(
            listen: "127.0.0.2", port: server.server.mediaPort, upstream: "127.0.0.1", downLoss: 0, seed: 1)
        let proxy = try await TCPProxy.start(to: server.port)
        let ann = try await server.client("Ann", url: proxy.url)
        let ben = try await server.client("Ben")
        let annID = try ann.id
        try await ann.session.audioHelper.start()
        try await ann.session.videoHelper.start()
        try await ben.session.audioHelper.start(muted: true)
        let atBen = ReceivedMedia(ben.session, from: annID)
        let publisher = TestPublisher.start(ann.session)
        defer { publisher.cancel() }
        try await atBen.waitFor(audio: 30, video: 3, "Ann's media at Ben")
        let bensSlots: @Sendable () -> [UserID] = { ben.session.engine.mediaSlots.latest.values.compactMap { $0 } }
        #expect(bensSlots().contains(annID))

        let ufrags = proxy.serverICEUfrags
        try #require(!ufrags.isEmpty, "no ICE ufrag seen in the answers to Ann")
        relay.cut(serverUfrags: ufrags)
        proxy.cut(refusingNew: true)
        let cut = ContinuousClock.now
        try await eventually("the server holds Ann's seat") { Self.isAway(annID, to: ben) }
        try await Task.sleep(for: .seconds(1))
        #expect(bensSlots().contains(annID), "her slots are kept while her peer may live")
        try await eventually(seconds: 30, "Ann's slots freed") { !bensSlots().contains(annID) }
        let freed = ContinuousClock.now - cut
        print("SignallingStallMediaTests: Ann's slots freed \(Self.seconds(freed)) after both her paths went (consent timeout \(consent))")

        publisher.cancel()
        await proxy.stop()
        await relay.stop()
        await server.stop()
    }
}
