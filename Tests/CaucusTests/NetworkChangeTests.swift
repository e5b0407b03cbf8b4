@testable import Caucus
import CaucusCore
import Foundation
import Testing

/// A network change (the path back, another interface, the app in the foreground again) makes
/// the session check its connection at once instead of at the next ping. Against a real
/// server, with Ann behind a TCP proxy the test controls.
///
/// Ann's pings and missed-event checks are an hour apart, so neither can be what notices a
/// dead connection here: only the network change can. Every client's `requestTimeout` is long
/// (as in BadNetworkTests): on a loaded machine a call may be slow, and no call here is meant
/// to time out.
@Suite struct NetworkChangeTests {
    static var configuration: CaucusSession.Configuration {
        var configuration = CaucusSession.Configuration(
            requestTimeout: .seconds(600), connectTimeout: .seconds(2), pingInterval: .seconds(3600),
            reconnectDelay: .milliseconds(50) ... .milliseconds(500))
        configuration.missedEventCheckInterval = .seconds(3600)
        return configuration
    }

    /// How the change reaches the session.
    enum Report: CaseIterable, Sendable {
        /// The app calls `networkDidChange()`.
        case appCall
        /// The path monitor sees the path move from one interface to another.
        case interfaceChanged
        /// The path monitor sees the path come back after it was gone.
        case pathBack
        /// The app returns to the foreground.
        case foreground
    }

    /// A host and Ben on the server directly, Ann through `proxy`; all three in Red.
    static func classInRed(_ server: TestServer, ann proxy: TCPProxy, annConfiguration: CaucusSession.Configuration)
        async throws -> (host: Client, ann: Client, ben: Client, red: SubsessionKit)
    {
        let host = try await server.client("Teacher", session: "Moving", role: .host, configuration: configuration)
        let ann = try await server.client("Ann", session: "Moving", url: proxy.url, configuration: annConfiguration)
        let ben = try await server.client("Ben", session: "Moving", configuration: configuration)
        let red = try await host.startRoom("Red", joinedBy: [ann, ben])
        try await ann.log.next("connected by the join") { $0.isConnectionState(.connected) ? true : nil }
        return (host, ann, ben, red)
    }

    @Test(arguments: Report.allCases)
    func aSilentlyDeadConnectionIsResumedAtOnceWhenTheNetworkChanges(_ report: Report) async throws {
        let server = try await TestServer.start()
        let proxy = try await TCPProxy.start(to: server.port)
        let (host, ann, ben, red) = try await Self.classInRed(server, ann: proxy, annConfiguration: Self.configuration)
        let annID = try ann.id
        let watcher = ann.session.engine.networkWatcher
        #expect(watcher.isWatching, "watching from the join")
        if report == .interfaceChanged || report == .pathBack {
            // What the monitor reports as it starts: the current path.
            watcher.pathChanged(NetworkPath(isUsable: true, interface: "en0"))
        }

        // Ann's path dies without a word; the room talks meanwhile (each call returns once
        // the server has it, and the server sends it to her dead connection).
        proxy.stall()
        var said: [String] = []
        for index in 1...3 {
            let text = "while the path was dead \(index)"
            try await ben.session.chat.send(text)
            said.append(text)
        }
        #expect(ann.session.connectionState == .connected, "nothing noticed the dead connection")

        switch report {
        case .appCall:
            await ann.session.networkDidChange()
        case .interfaceChanged:
            watcher.pathChanged(NetworkPath(isUsable: true, interface: "pdp_ip0"))
        case .pathBack:
            watcher.pathChanged(NetworkPath(isUsable: false, interface: nil))
            watcher.pathChanged(NetworkPath(isUsable: true, interface: "en0"))
        case .foreground:
            watcher.returnedToForeground()
        }

        try await ann.log.next("Ann reconnecting") { $0.isConnectionState(.reconnecting) ? true : nil }
        try await ann.log.next("Ann connected again") { $0.isConnectionState(.connected) ? true : nil }
        // Resumed: every missed message once, in order, before `.connected`; the same seat.
        #expect(ann.log.values(SeedWalkthroughTests.chat) == said)
        let snapshot = try ann.snapshot
        #expect(snapshot.myself.id == annID, "the same seat")
        #expect(snapshot.mySubsession?.id == red.id, "the same room")
        let all = ann.log.all
        #expect(all.filter { if case .sessionJoined = $0 { true } else { false } }.count == 1, "resumed, not joined again")
        #expect(!all.contains { if case .sessionLeft = $0 { true } else { false } })
        #expect(!all.contains { if case .resynchronized = $0 { true } else { false } })
        #expect(try host.snapshot.users.filter { $0.name == "Ann" }.map(\.id) == [annID], "one Ann, the same user")
        // And live on the new connection.
        try await ben.session.chat.send("live")
        try await ann.log.next("live chat") { SeedWalkthroughTests.chat($0) == "live" ? true : nil }
        await proxy.stop()
        await server.stop()
    }

    @Test func onAHealthyConnectionANetworkChangeCostsAPingAndNothingElse() async throws {
        let server = try await TestServer.start()
        let proxy = try await TCPProxy.start(to: server.port)
        let (_, ann, ben, red) = try await Self.classInRed(server, ann: proxy, annConfiguration: Self.configuration)
        let annID = try ann.id
        try await ben.session.chat.send("before")
        try await ann.log.next("before") { SeedWalkthroughTests.chat($0) == "before" ? true : nil }

        await ann.session.networkDidChange()
        // A burst, as a path monitor reports them, and the app's own call at the same time.
        let watcher = ann.session.engine.networkWatcher
        watcher.pathChanged(NetworkPath(isUsable: true, interface: "en0"))
        watcher.pathChanged(NetworkPath(isUsable: true, interface: "pdp_ip0"))
        watcher.returnedToForeground()
        await ann.session.networkDidChange()

        try await ben.session.chat.send("after")
        try await ann.log.next("after") { SeedWalkthroughTests.chat($0) == "after" ? true : nil }
        // The events come in order: a reconnect begun by any of the checks would show before "after".
        let states = ann.log.values { event -> ConnectionState? in
            if case .connectionStateChanged(let state) = event { state } else { nil }
        }
        #expect(states == [.connecting, .connected], "never dropped")
        #expect(ann.log.values(SeedWalkthroughTests.chat) == ["before", "after"], "no event twice")
        #expect(try ann.snapshot.myself.id == annID)
        #expect(try ann.snapshot.mySubsession?.id == red.id)
        #expect(ann.session.connectionState == .connected)
        await proxy.stop()
        await server.stop()
    }

    @Test func whileReconnectingANetworkChangeMakesTheNextAttemptAtOnce() async throws {
        let server = try await TestServer.start()
        let proxy = try await TCPProxy.start(to: server.port)
        // After the first attempt, the next would wait past the grace: only the network
        // change can bring Ann back in time.
        var configuration = Self.configuration
        configuration.reconnectDelay = .seconds(600) ... .seconds(600)
        let (_, ann, ben, red) = try await Self.classInRed(server, ann: proxy, annConfiguration: configuration)
        let annID = try ann.id

        proxy.cut(then: .refuse)
        try await ann.log.next("Ann reconnecting") { $0.isConnectionState(.reconnecting) ? true : nil }
        try await eventually("the first attempt turned away") { proxy.turnedAway >= 1 }
        try await ben.session.chat.send("while away")
        proxy.reopen()

        await ann.session.networkDidChange()
        try await ann.log.next("Ann connected again") { $0.isConnectionState(.connected) ? true : nil }
        #expect(ann.log.values(SeedWalkthroughTests.chat) == ["while away"])
        #expect(try ann.snapshot.myself.id == annID)
        #expect(try ann.snapshot.mySubsession?.id == red.id)
        #expect(!ann.log.all.contains { if case .sessionLeft = $0 { true } else { false } })
        await proxy.stop()
        await server.stop()
    }

    @Test func afterLeavingANetworkChangeDoesNothing() async throws {
        let server = try await TestServer.start()
        let ann = try await server.client("Ann", session: "Gone", configuration: Self.configuration)
        let watcher = ann.session.engine.networkWatcher
        #expect(watcher.isWatching)
        try await ann.session.leave()
        try await ann.log.next("left") { if case .sessionLeft(.left) = $0 { true } else { nil } }
        #expect(!watcher.isWatching, "stopped on leave")
        let heard = ann.log.all.count

        await ann.session.networkDidChange()
        watcher.pathChanged(NetworkPath(isUsable: true, interface: "en0"))
        watcher.pathChanged(NetworkPath(isUsable: true, interface: "pdp_ip0"))
        watcher.returnedToForeground()
        // The watcher is stopped: its reports reach nothing. The app's call returns once done.
        await ann.session.networkDidChange()

        #expect(ann.session.connectionState == .disconnected)
        #expect(ann.session.snapshot == nil)
        #expect(ann.log.all.count == heard, "no event after leaving: \(ann.log.all.suffix(ann.log.all.count - heard))")
        await server.stop()
    }
}
