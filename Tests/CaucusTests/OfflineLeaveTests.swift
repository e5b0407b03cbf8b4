@testable import Caucus
import CaucusCore
import Foundation
import Testing

/// `leave()` while the connection is down returns at once, locally: `sessionLeft(.left)`, no
/// snapshot. The server learns it when the connection returns while it holds the seat (the
/// others hear "left"), or else when the seat expires (they hear "timed out"). Against a real
/// server, with Ann behind a TCP proxy the test controls and the host on the server directly.
@Suite struct OfflineLeaveTests {
    static var annConfiguration: CaucusSession.Configuration { DeadPathTests.quiet }

    static func hostAndAnn(_ server: TestServer, ann proxy: TCPProxy) async throws -> (host: Client, ann: Client, annID: UserID) {
        let host = try await server.client("Teacher", session: "Leaving", role: .host, configuration: DeadPathTests.steady)
        let ann = try await server.client("Ann", session: "Leaving", url: proxy.url, configuration: annConfiguration)
        try await ann.log.next("connected by the join") { $0.isConnectionState(.connected) ? true : nil }
        return (host, ann, try ann.id)
    }

    /// Ann left, as far as her app can tell: the call returned, `sessionLeft(.left)`, nothing
    /// to show, disconnected.
    static func expectLeftLocally(_ ann: Client) async throws {
        try await ann.log.next("Ann's sessionLeft") { if case .sessionLeft(.left) = $0 { true } else { nil } }
        #expect(ann.session.snapshot == nil)
        #expect(ann.session.connectionState == .disconnected)
    }

    static func hostHears(_ host: Client, _ annID: UserID, leave reason: LeaveReason, seconds: Double = 30) async throws {
        let heard = try await host.log.next(seconds: seconds, "the host hears Ann leave") { event -> LeaveReason? in
            if case .usersLeft(let users, let reason) = event, users.map(\.id) == [annID] { reason } else { nil }
        }
        #expect(heard == reason)
    }

    @Test func leavingWhileReconnectingReturnsAtOnceAndTheServerHearsItWhenThePathReturns() async throws {
        let server = try await TestServer.start()
        let proxy = try await TCPProxy.start(to: server.port)
        let (host, ann, annID) = try await Self.hostAndAnn(server, ann: proxy)

        proxy.cut(then: .refuse)
        try await ann.log.next("Ann reconnecting") { $0.isConnectionState(.reconnecting) ? true : nil }
        // Returns without the server (it used to wait for a reconnect, then throw `notJoined`).
        try await within(seconds: 60, "Ann's leave") { try await ann.session.leave() }
        try await Self.expectLeftLocally(ann)
        // The server still holds her seat, until it hears from her or the grace ends.
        #expect(try host.snapshot.users.contains { $0.id == annID })

        proxy.reopen()
        try await Self.hostHears(host, annID, leave: .left)
        #expect(try !host.snapshot.users.contains { $0.id == annID })
        // Ann's app heard nothing more: the farewell is not a session.
        #expect(ann.log.all.filter { if case .sessionLeft = $0 { true } else { false } }.count == 1)
        #expect(ann.session.snapshot == nil)
        await proxy.stop()
        await server.stop()
    }

    /// The path never returns: the seat expires after the server's grace (3 s here), and the
    /// host hears Ann timed out.
    @Test func leavingWhileTheServerIsUnreachableForGoodEndsInTheSeatExpiring() async throws {
        let server = try await TestServer.start(limits: SessionLimits(reconnectGraceSeconds: 3))
        let proxy = try await TCPProxy.start(to: server.port)
        let (host, ann, annID) = try await Self.hostAndAnn(server, ann: proxy)

        proxy.cut(then: .refuse)
        try await ann.log.next("Ann reconnecting") { $0.isConnectionState(.reconnecting) ? true : nil }
        try await within(seconds: 60, "Ann's leave") { try await ann.session.leave() }
        try await Self.expectLeftLocally(ann)
        try await Self.hostHears(host, annID, leave: .timedOut)
        await proxy.stop()
        await server.stop()
    }

    /// Connected, but the connection died without a word: the leave is bounded by
    /// `connectTimeout` of silence, not `requestTimeout` (ten minutes here), and then goes as
    /// an offline one does; new connections get through, so the server hears "left".
    @Test func leavingOnASilentlyDeadConnectionReturnsAndTheServerHearsItOnANewOne() async throws {
        let server = try await TestServer.start()
        let proxy = try await TCPProxy.start(to: server.port)
        let host = try await server.client("Teacher", session: "Leaving", role: .host, configuration: DeadPathTests.steady)
        let ann = try await server.client("Ann", session: "Leaving", url: proxy.url, configuration: DeadPathTests.steady)
        let annID = try ann.id

        proxy.stall()
        try await within(seconds: 60, "Ann's leave") { try await ann.session.leave() }
        try await Self.expectLeftLocally(ann)
        try await Self.hostHears(host, annID, leave: .left)
        await proxy.stop()
        await server.stop()
    }
}
