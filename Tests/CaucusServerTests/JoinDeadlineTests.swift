import Foundation
import Testing

/// WebSocket connections that do not join are bounded (issue 26, item 3): each has a join
/// deadline (4008), each address may hold so many at once (4009), and the metrics count both.
@Suite(.serialized) struct JoinDeadlineTests {
    static func start(deadline: Duration = .seconds(1), perAddress: Int = 100) async throws -> TestServer {
        try await TestServer.start { configuration in
            configuration.joinDeadline = deadline
            configuration.maxWaitingPerAddress = perAddress
        }
    }

    @Test func aSocketThatSendsNothingIsClosedAtTheDeadlineAndCounted() async throws {
        let server = try await Self.start()
        let before = try await Self.metric(server, "caucus_join_deadline_closed_total")
        let idle = try RawWebSocket(port: server.port)
        #expect(try await idle.closeCode() == 4008)
        #expect(try await Self.metric(server, "caucus_join_deadline_closed_total") >= before + 1)
        await server.stop()
    }

    @Test func aJoinedConnectionOutlivesTheDeadline() async throws {
        let server = try await Self.start()
        let ada = try await server.joined("Ada", role: .host)
        try await Task.sleep(for: .seconds(2))
        try await ada.request("ping")
        await server.stop()
    }

    @Test func aRefusedJoinGivesTheConnectionTheDeadlineAgain() async throws {
        let server = try await Self.start(deadline: .seconds(4))
        _ = try await server.joined("Ada", role: .host, password: "pw")
        let bob = try await TestClient.connect(to: server)
        let token = try server.token(session: "Class")
        try await Task.sleep(for: .seconds(2.5))
        #expect(try await bob.refused("join", ["session": "Class", "userName": "Bob", "token": token]) == 2010)
        try await Task.sleep(for: .seconds(2.5))
        // 5 s after the upgrade, but 2.5 s after the refusal: the retry is in time.
        try await bob.join(session: "Class", userName: "Bob", token: token, password: "pw")
        await server.stop()
    }

    @Test func anAddressWithTooManyWaitingConnectionsIsRefusedAndCounted() async throws {
        let server = try await Self.start(deadline: .seconds(60), perAddress: 3)
        let before = try await Self.metric(server, "caucus_unjoined_refused_total")
        let waiting = try (0..<3).map { _ in try RawWebSocket(port: server.port) }
        let fourth = try RawWebSocket(port: server.port)
        #expect(try await fourth.closeCode() == 4009)
        #expect(try await Self.metric(server, "caucus_unjoined_refused_total") >= before + 1)
        // One of the three joins: it no longer waits, so the address may open another.
        try waiting[0].sendText(
            #"{"id":1,"op":"join","session":"Class","userName":"Ada","token":"\#(try server.token(session: "Class", role: .host))"}"#)
        let reply = try #require(try await waiting[0].nextFrame())
        #expect(reply.text.contains(#""re":1"#) && reply.text.contains(#""secret""#), "\(reply.text)")
        let fifth = try RawWebSocket(port: server.port)
        try fifth.sendText(#"{"id":7,"op":"ping"}"#)
        #expect(try #require(try await fifth.nextFrame()).text.contains(#""re":7"#))
        await server.stop()
    }

    static func metric(_ server: TestServer, _ name: String) async throws -> Double {
        let text = try await HTTP.get(server, "/metrics").body
        return ControlAPITests.sample(text, name) ?? 0
    }
}
