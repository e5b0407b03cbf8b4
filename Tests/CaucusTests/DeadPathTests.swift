@testable import Caucus
import CaucusCore
import Foundation
import Testing

/// Paths that die without a word, where only the SDK's own bounds can notice: a path that
/// dies just after the WebSocket upgrade of a resume, and a connection that goes silently
/// dead while joined. Against a real server, with Ann behind a TCP proxy the test controls.
///
/// Only liveness bounds here: each test's configuration makes the old behaviour lose the seat
/// or hang past a generous bound, and the new one keep it.
@Suite struct DeadPathTests {
    /// Ann's pings and missed-event checks an hour apart (so that only what a test exercises
    /// can notice a dead connection), and `requestTimeout` at its default, as an app has it.
    static var quiet: CaucusSession.Configuration {
        var configuration = CaucusSession.Configuration(
            connectTimeout: .seconds(2), pingInterval: .seconds(3600), reconnectDelay: .milliseconds(50) ... .milliseconds(500))
        configuration.missedEventCheckInterval = .seconds(3600)
        return configuration
    }

    /// The others, on the server directly, never misbehave and never time out.
    static var steady: CaucusSession.Configuration {
        var configuration = quiet
        configuration.requestTimeout = .seconds(600)
        return configuration
    }

    /// Ann through `proxy`, Ben directly, both in the main session.
    static func annAndBen(_ server: TestServer, ann proxy: TCPProxy, annConfiguration: CaucusSession.Configuration)
        async throws -> (ann: Client, ben: Client)
    {
        let ann = try await server.client("Ann", session: "Dead", url: proxy.url, configuration: annConfiguration)
        let ben = try await server.client("Ben", session: "Dead", configuration: steady)
        try await ann.log.next("connected by the join") { $0.isConnectionState(.connected) ? true : nil }
        return (ann, ben)
    }

    /// Ann resumed the same seat with every missed message, and never left.
    static func expectResumed(_ ann: Client, as annID: UserID, said: [String], ben: Client) async throws {
        try await ann.log.next(seconds: 60, "Ann connected again") { $0.isConnectionState(.connected) ? true : nil }
        #expect(ann.log.values(SeedWalkthroughTests.chat) == said)
        #expect(try ann.snapshot.myself.id == annID, "the same seat")
        let all = ann.log.all
        #expect(all.filter { if case .sessionJoined = $0 { true } else { false } }.count == 1, "resumed, not joined again")
        #expect(!all.contains { if case .sessionLeft = $0 { true } else { false } })
        try await ben.session.chat.send("live")
        try await ann.log.next("live chat") { SeedWalkthroughTests.chat($0) == "live" ? true : nil }
    }

    /// The server's grace (10 s) is shorter than Ann's `requestTimeout` (30 s, the default): a
    /// resume bounded by the request timeout outlives the seat, and Ann is refused or gives up
    /// (`sessionLeft`). Bounded by `connectTimeout` (2 s), the stuck attempt is given up and the
    /// next one, once the path is back, resumes the seat.
    @Test func aPathThatDiesJustAfterTheUpgradeCostsOneShortAttemptNotTheSeat() async throws {
        let server = try await TestServer.start(limits: SessionLimits(reconnectGraceSeconds: 10))
        let proxy = try await TCPProxy.start(to: server.port)
        let (ann, ben) = try await Self.annAndBen(server, ann: proxy, annConfiguration: Self.quiet)
        let annID = try ann.id

        proxy.cut(then: .stallAfterUpgrade)
        try await ann.log.next("Ann reconnecting") { $0.isConnectionState(.reconnecting) ? true : nil }
        try await ben.session.chat.send("while away")
        try await eventually(seconds: 30, "an attempt upgraded, then stalled") { proxy.turnedAway >= 1 }
        proxy.reopen()

        try await Self.expectResumed(ann, as: annID, said: ["while away"], ben: ben)
        await proxy.stop()
        await server.stop()
    }

    /// Ann's `connectTimeout` and `requestTimeout` are ten minutes: only the network change can
    /// unstick a resume whose path died after the upgrade.
    @Test func aNetworkChangeGivesUpAResumeStuckOnADeadPath() async throws {
        let server = try await TestServer.start()
        let proxy = try await TCPProxy.start(to: server.port)
        var configuration = Self.steady
        configuration.connectTimeout = .seconds(600)
        let (ann, ben) = try await Self.annAndBen(server, ann: proxy, annConfiguration: configuration)
        let annID = try ann.id

        proxy.cut(then: .stallAfterUpgrade)
        try await ann.log.next("Ann reconnecting") { $0.isConnectionState(.reconnecting) ? true : nil }
        try await ben.session.chat.send("while away")
        try await eventually(seconds: 30, "an attempt upgraded, then stalled") { proxy.turnedAway >= 1 }
        let engine = ann.session.engine
        try await within(seconds: 30, "Ann's attempt sent its resume") {
            while await engine.reconnectProgress.stage != .resuming { try await Task.sleep(for: .milliseconds(10)) }
        }
        proxy.reopen()

        await ann.session.networkDidChange()
        try await Self.expectResumed(ann, as: annID, said: ["while away"], ben: ben)
        await proxy.stop()
        await server.stop()
    }

    /// A connection that goes silently dead (the proxy relays nothing either way and closes
    /// nothing) is noticed by the SDK's keepalive within `pingInterval + connectTimeout`, as
    /// the README promises, and the seat resumed. The bound below leaves eight seconds for a
    /// slow machine; the WebSocket library's pings, which decided before, took twice the
    /// interval (a whole interval for the pong) and more.
    @Test func aSilentlyDeadConnectionIsNoticedWithinThePingIntervalAndTheConnectTimeout() async throws {
        let server = try await TestServer.start()
        let proxy = try await TCPProxy.start(to: server.port)
        var configuration = Self.steady
        configuration.pingInterval = .seconds(20)
        let (ann, ben) = try await Self.annAndBen(server, ann: proxy, annConfiguration: configuration)
        let annID = try ann.id

        proxy.stall()
        let died = ContinuousClock.now
        try await ben.session.chat.send("while dead")
        try await ann.log.next(seconds: 60, "Ann reconnecting") { $0.isConnectionState(.reconnecting) ? true : nil }
        let noticed = ContinuousClock.now - died
        #expect(noticed < configuration.pingInterval + configuration.connectTimeout + .seconds(8), "noticed after \(noticed)")

        try await Self.expectResumed(ann, as: annID, said: ["while dead"], ben: ben)
        await proxy.stop()
        await server.stop()
    }

    /// A connection that answers is kept, however many keepalive pings pass.
    @Test func aLiveConnectionSurvivesItsKeepalivePings() async throws {
        let server = try await TestServer.start()
        let proxy = try await TCPProxy.start(to: server.port)
        var configuration = Self.steady
        configuration.pingInterval = .milliseconds(100)
        let (ann, ben) = try await Self.annAndBen(server, ann: proxy, annConfiguration: configuration)
        for index in 1...3 {
            try await Task.sleep(for: .milliseconds(500))
            try await ben.session.chat.send("message \(index)")
        }
        try await ann.log.next("the last message") { SeedWalkthroughTests.chat($0) == "message 3" ? true : nil }
        let states = ann.log.values { event -> ConnectionState? in
            if case .connectionStateChanged(let state) = event { state } else { nil }
        }
        #expect(states == [.connecting, .connected], "never dropped")
        #expect(ann.log.values(SeedWalkthroughTests.chat) == ["message 1", "message 2", "message 3"])
        await proxy.stop()
        await server.stop()
    }
}
