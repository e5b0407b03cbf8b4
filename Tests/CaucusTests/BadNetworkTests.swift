import Caucus
import CaucusCore
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A seat survives the networks a phone meets: a `caucus serve` process, and a TCP proxy
/// between Ann and the server that, after cutting her connection, accepts and closes, swallows,
/// or resets her attempts for a while; or the server is killed and restarted. Each time Ann
/// resumes the same seat in the same room with every message she missed, once, in order.
///
/// The clients' `requestTimeout` is long on purpose: an attempt bounded by it rather than by
/// `connectTimeout` would hang past the test's liveness bounds (and past the grace) instead of
/// passing slowly.
@Suite(.serialized) struct BadNetworkTests {
    /// How a cycle takes Ann's connection away.
    enum Outage: CaseIterable {
        case acceptAndClose, blackhole, reset, serverKilled

        var proxyMode: TCPProxy.Mode? {
            switch self {
            case .acceptAndClose: .acceptAndClose
            case .blackhole: .blackhole
            case .reset: .reset
            case .serverKilled: nil
            }
        }

        /// Attempts turned away before the proxy forwards again. An accept-and-close or a
        /// blackhole costs Ann a whole `connectTimeout` per attempt; the fast failures show the
        /// backoff keeps trying.
        var turnedAway: Int {
            switch self {
            case .acceptAndClose, .blackhole: 1
            case .reset, .serverKilled: 3
            }
        }
    }

    /// Cycles of the long test, across the outages in turn; `CAUCUS_RECONNECT_CYCLES` changes it.
    static var cycles: Int { ProcessInfo.processInfo.environment["CAUCUS_RECONNECT_CYCLES"].flatMap(Int.init) ?? 50 }

    static let configuration = CaucusSession.Configuration(
        requestTimeout: .seconds(600), connectTimeout: .seconds(2), reconnectDelay: .milliseconds(50) ... .milliseconds(500))

    static func client(_ userName: String, role: RoleClaim = .participant, via proxy: TCPProxy, _ server: ServerProcess)
        async throws -> Client
    {
        let client = Client(configuration: configuration)
        let token = try server.token(session: "Weather", role: role)
        try await within("\(userName) joins") {
            try await client.session.join(url: proxy.url, sessionName: "Weather", userName: userName, token: token)
        }
        return client
    }

    @Test func aSeatSurvivesAcceptAndCloseBlackholeResetAndAKilledServerCycleAfterCycle() async throws {
        let folder = temporaryFolder(prefix: "caucus-sdk-bad-network-")
        var server = try await ServerProcess(dataDirectory: folder)
        // The host and Ben reach the server through a proxy that only ever forwards (so they
        // follow a restarted server); Ann through one that misbehaves.
        let steady = try await TCPProxy.start(to: server.port)
        let flaky = try await TCPProxy.start(to: server.port)
        let host = try await Self.client("Teacher", role: .host, via: steady, server)
        let ann = try await Self.client("Ann", via: flaky, server)
        let ben = try await Self.client("Ben", via: steady, server)
        let red = try await host.startRoom("Red", joinedBy: [ann, ben])
        let annID = try ann.id
        var said: [String] = []
        // Each cycle takes its own `.reconnecting` and `.connected`, after the join's.
        try await ann.log.next("connected by the join") { $0.isConnectionState(.connected) ? true : nil }

        for cycle in 1...Self.cycles {
            let outage = Outage.allCases[(cycle - 1) % Outage.allCases.count]
            let before = flaky.turnedAway
            if let mode = outage.proxyMode {
                flaky.cut(then: mode)
            } else {
                server.kill(SIGKILL)
            }
            try await ann.log.next(seconds: 30, "cycle \(cycle) (\(outage)): Ann reconnecting") {
                $0.isConnectionState(.reconnecting) ? true : nil
            }
            if outage == .serverKilled {
                // Ben lost his connection too; a call made before his SDK noticed would fail
                // with `connectionLost` (only calls made while reconnecting wait).
                try await ben.log.next(seconds: 30, "cycle \(cycle): Ben reconnecting") { $0.isConnectionState(.reconnecting) ? true : nil }
                // Back on another port; Ann's proxy still points at the dead one.
                server = try await ServerProcess(dataDirectory: folder)
                steady.retarget(to: server.port)
            }
            // The room talks while Ann is away (each call returns once the server has it).
            for index in 1...3 {
                let text = "cycle \(cycle) message \(index)"
                try await within(seconds: 60, "cycle \(cycle): Ben says \(index)") { try await ben.session.chat.send(text) }
                said.append(text)
            }
            try await eventually(seconds: 30, "cycle \(cycle) (\(outage)): Ann's attempts turned away") {
                flaky.turnedAway >= before + outage.turnedAway
            }
            if outage == .serverKilled { flaky.retarget(to: server.port) } else { flaky.reopen() }

            try await ann.log.next(seconds: 30, "cycle \(cycle) (\(outage)): Ann connected again") {
                $0.isConnectionState(.connected) ? true : nil
            }
            // Every missed message arrived before `.connected`, once each, in order.
            #expect(ann.log.values(SeedWalkthroughTests.chat) == said, "cycle \(cycle) (\(outage))")
            let snapshot = try ann.snapshot
            #expect(snapshot.myself.id == annID, "cycle \(cycle): the same seat")
            #expect(snapshot.mySubsession?.id == red.id, "cycle \(cycle): the same room")
            // Her own `userResumed` is recorded by the resume and sent once durable, which can be
            // just after the ping that ends the replay (so just after `.connected`).
            try await eventually(seconds: 30, "cycle \(cycle): Ann shown connected") { try ann.snapshot.myself.isConnected }
            if outage == .blackhole {
                // The attempts Ann gave up were closed, not left hanging.
                try await eventually(seconds: 30, "cycle \(cycle): the swallowed attempts closed") { flaky.swallowedOpen == 0 }
            }
        }

        // The host and Ben never lost theirs either; if one did, what it was told says why (a
        // refusal's message) rather than a later call's "Not in a session".
        for (name, client) in [("Teacher", host), ("Ben", ben)] {
            let told = client.log.all.filter {
                switch $0 {
                case .sessionLeft, .error: true
                default: false
                }
            }
            #expect(!told.contains { if case .sessionLeft = $0 { true } else { false } }, "\(name) lost the session: \(told)")
        }
        // Resumed each time, never joined again nor resynchronized, never lost the session.
        let all = ann.log.all
        #expect(all.filter { if case .sessionJoined = $0 { true } else { false } }.count == 1)
        #expect(!all.contains { if case .resynchronized = $0 { true } else { false } })
        #expect(!all.contains { if case .sessionLeft = $0 { true } else { false } })
        #expect(try host.snapshot.users.filter { $0.name == "Ann" }.map(\.id) == [annID], "one Ann, the same user")
        // And live: a message now reaches her straight away.
        try await ben.session.chat.send("the end")
        try await ann.log.next("live chat") { SeedWalkthroughTests.chat($0) == "the end" ? true : nil }
        await flaky.stop()
        await steady.stop()
        server.kill(SIGKILL)
    }

    @Test(arguments: [TCPProxy.Mode.acceptAndClose, .blackhole, .reset])
    func joiningThroughAMisbehavingProxyFailsAfterTheConnectTimeoutAndLeavesNothingOpen(_ mode: TCPProxy.Mode) async throws {
        let server = try await TestServer.start()
        let proxy = try await TCPProxy.start(to: server.port)
        proxy.misbehave(mode)
        let client = Client(configuration: Self.configuration)
        let token = try server.token(session: "Bad", role: .participant)
        // Bounded by `connectTimeout` (2 s), not `requestTimeout` (600 s).
        let error = try await within(seconds: 30, "the join fails") {
            do throws(SessionError) {
                _ = try await client.session.join(url: proxy.url, sessionName: "Bad", userName: "Ann", token: token)
                return SessionError.invalidResponse("joined through a misbehaving proxy")
            } catch {
                return error
            }
        }
        guard case .connectionFailed = error else { throw TestFailure("expected connectionFailed, got \(error)") }
        #expect(proxy.turnedAway == 1)
        #expect(client.session.connectionState == .disconnected)
        // A given-up attempt closes its connection: the proxy's swallowed side sees the close.
        try await eventually(seconds: 30, "the abandoned connection closed") { proxy.swallowedOpen == 0 }
        await proxy.stop()
        await server.stop()
    }
}
