import Foundation
import Testing
@testable import CaucusServer

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
        // Connections count from their accept: the metrics request's must be gone first.
        try await ConnectionAdmissionTests.until("the metrics connection is closed") {
            server.server.admission.waitingCount(from: "127.0.0.1") == 0
        }
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

    /// The join (or resume) reply reaches the client only once its connection no longer waits
    /// to join: read at the moment the reply arrives, the address's waiting count is already
    /// back to what it was, and a connection opened right away is let in. Before, the place was
    /// released after the reply was written, so a client quick enough found it still taken
    /// (4009), as `anAddressWithTooManyWaitingConnectionsIsRefusedAndCounted` did under load.
    @Test func aJoinOrResumeRepliedToNoLongerCountsAsWaiting() async throws {
        let server = try await Self.start(deadline: .seconds(60), perAddress: 1)
        let admission = server.server.admission
        let token = try server.token(session: "Class", role: .host)
        var secret: String?
        for round in 0..<40 {
            let socket = try RawWebSocket(port: server.port)
            for _ in 0..<10_000 where admission.waitingCount(from: "127.0.0.1") == 0 { try await Task.sleep(for: .milliseconds(1)) }
            #expect(admission.waitingCount(from: "127.0.0.1") == 1, "round \(round)'s connection counted as waiting")
            if round % 2 == 1, let held = secret {
                try socket.sendText(#"{"id":1,"op":"resume","secret":"\#(held)","lastSeq":0}"#)
            } else {
                try socket.sendText(#"{"id":1,"op":"join","session":"Class","userName":"U\#(round)","token":"\#(token)"}"#)
            }
            let reply = try #require(try await socket.nextFrame())
            let waiting = admission.waitingCount(from: "127.0.0.1")
            #expect(waiting == 0, "round \(round): the reply arrived while its connection still counted as waiting")
            #expect(reply.text.contains(#""re":1"#) && !reply.text.contains("error"), "\(reply.text)")
            if let range = reply.text.range(of: #""secret":"[^"]+""#, options: .regularExpression) {
                secret = String(reply.text[range].dropFirst(10).dropLast())
            }
        }
        await server.stop()
    }

    /// One metric, over a connection closed after the answer (a kept-alive one would count
    /// as not joined until the deadline closes it).
    static func metric(_ server: TestServer, _ name: String) async throws -> Double {
        let text = try await RawHTTP.send(port: server.port, "GET", "/metrics").body
        return ControlAPITests.sample(text, name) ?? 0
    }
}
