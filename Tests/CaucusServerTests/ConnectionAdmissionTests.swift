import Foundation
import Testing
@testable import CaucusServer

/// Connections are bounded from their accept, not from their upgrade (issue 41, items 1 and
/// 5): each must send its request whole within the deadline, the server holds only so many
/// that have not joined (`maxWaiting`), while joined users and the health port go on, and a
/// class behind one address fits the default per-address limit.
@Suite(.serialized) struct ConnectionAdmissionTests {
    @Test func aConnectionThatSendsNothingOrStopsMidRequestIsClosedAtTheDeadline() async throws {
        let server = try await TestServer.start { configuration in
            configuration.joinDeadline = .seconds(2)
        }
        let before = try await JoinDeadlineTests.metric(server, "caucus_request_deadline_closed_total")
        // A request whose handler waits for its body: the session's operations, authenticated.
        let ann = try await server.joined("Ann", role: .host)
        let api = ControlAPI(server)
        let operations = "/v1/sessions/\(try await api.sessionID(named: "Class"))/operations"
        let authorization = ControlAPI.basic(api.key, api.secret)
        let strangers = [
            ("no byte", ""),
            ("half a request head", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"),
            ("a head and part of its body",
             "POST \(operations) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: \(authorization)\r\nContent-Length: 100\r\n\r\n{\"op\":"),
            ("a half upgrade", "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"),
        ]
        let sockets = try strangers.map { try StrangerSocket(port: server.port, sending: $0.1) }
        // Not at once: a slow client has the deadline to finish its request.
        #expect(await sockets[0].closed(within: 1) == nil, "closed before the deadline")
        for (socket, (what, _)) in zip(sockets, strangers) {
            let sent = await socket.closed(within: 15)
            #expect(sent == "", "\(what): \(sent.map { "answered \($0.prefix(40))" } ?? "still open")")
        }
        // A kept-alive connection that was answered has the deadline again for its next request.
        let kept = try StrangerSocket(port: server.port, sending: "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let answer = await kept.closed(within: 15)
        #expect(answer?.hasPrefix("HTTP/1.1 200") == true, "\(answer ?? "still open")")
        // Answered before its body was read (refused: no credentials), then the rest of the
        // body, then nothing: the next request's deadline runs from there.
        let early = try StrangerSocket(
            port: server.port, sending: "POST \(operations) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 8\r\n\r\n{\"op\"")
        try await Task.sleep(for: .milliseconds(500))
        try early.send(":1}")
        let refused = await early.closed(within: 15)
        #expect(refused?.hasPrefix("HTTP/1.1 401") == true, "\(refused ?? "still open")")
        #expect(try await JoinDeadlineTests.metric(server, "caucus_request_deadline_closed_total") >= before + 5)
        #expect(server.server.admission.waitingTotal <= 1, "only the metrics request's connection may still count")
        try await ann.request("ping")
        await server.stop()
    }

    @Test func overTheCeilingANewConnectionIsClosedAtOnceWhileJoinedUsersAndTheHealthPortGoOn() async throws {
        let server = try await TestServer.start { configuration in
            configuration.maxWaiting = 4
            configuration.joinDeadline = .seconds(30)
        }
        let (ports, found) = AsyncStream.makeStream(of: Int.self)
        let health = server.server.healthApplication(port: 0) { port in found.yield(port) }
        let healthTask = Task { try await health.runService(gracefulShutdownSignals: []) }
        var portIterator = ports.makeAsyncIterator()
        let healthPort = try #require(await portIterator.next())
        let admission = server.server.admission
        let ada = try await server.joined("Ada", role: .host)
        try await Self.until("Ada's connection no longer counts") { admission.waitingTotal == 0 }
        var silent = try (0..<4).map { _ in try StrangerSocket(port: server.port) }
        try await Self.until("four strangers held") { admission.waitingTotal == 4 }

        // The deadline is 30 s: a close now is the ceiling's, with not a byte sent.
        let fifth = try StrangerSocket(port: server.port)
        #expect(await fifth.closed(within: 15) == "")
        #expect(throws: TestFailure.self) { try RawWebSocket(port: server.port) }
        let mainHealth = try StrangerSocket(port: server.port, sending: "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(await mainHealth.closed(within: 15) == "", "the main port's /healthz is closed at the ceiling too")

        // Joined users are not counted, and the health port has a ceiling of its own.
        try await ada.request("chat", ["text": "still here"])
        let healthz = try await RawHTTP.send(port: healthPort, "GET", "/healthz")
        #expect(healthz.status == 200 && healthz.body.contains("ok"), "\(healthz)")
        let metrics = try await RawHTTP.send(port: healthPort, "GET", "/metrics")
        #expect((ControlAPITests.sample(metrics.body, "caucus_connections_over_ceiling_total") ?? 0) >= 3)
        #expect(ControlAPITests.sample(metrics.body, "caucus_unjoined_connections") == 4)
        for path in ["/v1/sessions", "/console/", "/openapi.json"] {
            let other = try await RawHTTP.send(port: healthPort, "GET", path)
            #expect(other.status == 404, "the health port serves nothing else: \(path) answered \(other.status)")
        }

        // A stranger gone frees its place.
        silent.removeFirst()
        try await Self.until("a place freed") { admission.waitingTotal == 3 }
        let socket = try RawWebSocket(port: server.port)
        try socket.sendText(#"{"id":1,"op":"ping"}"#)
        #expect(try #require(try await socket.nextFrame()).text.contains(#""re":1"#))
        silent.removeAll()
        healthTask.cancel()
        _ = try? await healthTask.value
        await server.stop()
    }

    /// Over its limit an address may still fetch pages (an upgrade is refused 4009), but only
    /// so many more: then its new connections are closed at once, and it cannot take the
    /// whole ceiling with connections that never join.
    @Test func anAddressOverItsLimitIsReadForSoManyMoreThenClosedAtOnce() async throws {
        let server = try await TestServer.start { configuration in
            configuration.maxWaitingPerAddress = 2
            configuration.joinDeadline = .seconds(30)
        }
        let admission = server.server.admission
        #expect(admission.overLimitPerAddress == 64)
        var held = try (0..<(2 + 63)).map { _ in try StrangerSocket(port: server.port) }
        try await Self.until("65 strangers held") { admission.waitingTotal == 65 }
        // The 66th, the last over the limit, is still answered.
        var page: StrangerSocket? = try StrangerSocket(
            port: server.port, sending: "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let answer = await page?.closed(within: 15)
        #expect(answer?.hasPrefix("HTTP/1.1 200") == true, "\(answer ?? "still open")")
        page = nil
        try await Self.until("its place given back") { admission.waitingTotal == 65 }
        held.append(try StrangerSocket(port: server.port))
        try await Self.until("66 strangers held") { admission.waitingTotal == 66 }
        let beyond = try StrangerSocket(port: server.port, sending: "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(await beyond.closed(within: 15) == "", "closed at once, with nothing sent")
        #expect(admission.waitingCount(from: "127.0.0.1") == 2)
        held.removeAll()
        await server.stop()
    }

    /// A class behind one NAT opens its links at once: with the defaults, 300 connections from
    /// one address wait to join at the same moment, and every join is taken.
    @Test func threeHundredConnectionsFromOneAddressJoinAtOnce() async throws {
        let server = try await TestServer.start()
        let sockets = try (0..<300).map { _ in try RawWebSocket(port: server.port) }
        #expect(server.server.admission.waitingCount(from: "127.0.0.1") == 300)
        var tokens: [String: String] = [:]
        for index in sockets.indices {
            let session = "Class\(index % 30)"
            if tokens[session] == nil { tokens[session] = try server.token(session: session, role: .host) }
            try sockets[index].sendText(
                #"{"id":1,"op":"join","session":"\#(session)","userName":"Pupil \#(index)","token":"\#(tokens[session]!)"}"#)
        }
        var refused: [String] = []
        for (index, socket) in sockets.enumerated() {
            let reply = try await socket.nextFrame()
            guard let reply, reply.text.contains(#""re":1"#), reply.text.contains(#""secret""#) else {
                refused.append("\(index): \(reply.map { $0.closeCode.map { "closed \($0)" } ?? $0.text } ?? "closed")")
                continue
            }
        }
        #expect(refused.isEmpty, "\(refused.count) refused, first: \(refused.prefix(3))")
        #expect(server.server.admission.waitingCount(from: "127.0.0.1") == 0)
        await server.stop()
    }

    /// Polls `condition` until it holds; fails after 15 s.
    static func until(_ what: String, _ condition: () -> Bool) async throws {
        for _ in 0..<1_500 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestFailure("timed out waiting until \(what)")
    }
}
