import CaucusCore
import Foundation
import Testing

@Suite(.serialized) struct SlowConsumerTests {
    @Test func aClientThatStopsReadingIsCutOffWhileTheOthersKeepReceiving() async throws {
        let server = try await TestServer.start(outboundQueueLimit: 32)
        let (host, listener, sent) = try await Self.chatUntilTheSlowOneIsCutOff(server)
        // Everyone else received every message, in order, and the session goes on.
        for _ in 0..<sent { _ = try await within("listener keeps receiving") { try await listener.event("chatMessage") } }
        try await host.request("chat", ["text": "after"])
        let after = try await within("after") { try await listener.event("chatMessage") }
        #expect(((after["event"] as? JSON)?["message"] as? JSON)?["text"] as? String == "after")
        let metrics = try await HTTP.get(server, "/metrics")
        #expect(metrics.body.contains("caucus_slow_clients_dropped_total"))
        // The slow user holds its seat (reconnecting), as any dropped connection does.
        let reconnecting = try await within("seat held") { try await host.event("userReconnecting") }
        #expect((reconnecting["event"] as? JSON)?["user"] as? Int == 3)
        #expect(sent > 32, "cut off only once its queue was full (\(sent) messages)")
        await server.stop()
    }

    /// The queue is bounded in bytes too: with no useful bound on frames (a million), a client
    /// that stops reading is cut off as too slow once 256 KiB wait for it beyond what the kernel
    /// holds. (Keep-alive, which would also drop it, is set beyond the test's length.)
    @Test func aClientThatStopsReadingIsCutOffByTheBytesItLeavesWaiting() async throws {
        let server = try await TestServer.start(outboundQueueLimit: 1_000_000, keepAliveInterval: .seconds(3_600)) {
            $0.outboundQueueBytes = 256 << 10
        }
        let droppedBefore = try await Self.slowClientsDropped(server)
        let (host, _, sent) = try await Self.chatUntilTheSlowOneIsCutOff(server)
        let reconnecting = try await within("seat held") { try await host.event("userReconnecting") }
        #expect((reconnecting["event"] as? JSON)?["user"] as? Int == 3)
        #expect(sent * 3_000 > 256 << 10, "cut off only once 256 KiB waited (\(sent) messages of 3,000 characters)")
        #expect(try await Self.slowClientsDropped(server) == droppedBefore + 1, "cut off as too slow, not by keep-alive")
        await server.stop()
    }

    /// `caucus_slow_clients_dropped_total` as `/metrics` says it now (the process's count: the
    /// tests share it).
    static func slowClientsDropped(_ server: TestServer) async throws -> Int {
        let metrics = try await HTTP.get(server, "/metrics")
        let line = metrics.body.split(separator: "\n").first { $0.hasPrefix("caucus_slow_clients_dropped_total ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? 0
    }

    /// A host, a listener who reads, and a slow client (a bare socket that joins and never
    /// reads again); the host chats 3,000 characters at a time until the server cuts the slow
    /// one off, which the host hears as its seat waiting for a resume (the socket itself cannot
    /// tell: a FIN queues behind unread data). Returns how many messages it took.
    static func chatUntilTheSlowOneIsCutOff(_ server: TestServer) async throws -> (host: TestClient, listener: TestClient, sent: Int) {
        let host = try await server.joined("Teacher", role: .host)
        let listener = try await server.joined("Listener")
        let slow = try RawWebSocket(port: server.port)
        try slow.sendText(#"{"id":1,"op":"join","session":"Class","userName":"Sloth","token":"\#(try server.token(session: "Class"))"}"#)
        _ = try await within("the slow client joins") { try await host.event("userJoined") }
        let text = String(repeating: "x", count: 3_000)
        var sent = 0
        func cutOff() async -> Bool {
            await host.keptEvents().contains { TestClient.type(of: $0) == "userReconnecting" }
        }
        while await !cutOff() {
            try await host.request("chat", ["text": text])
            sent += 1
            if sent > 20_000 { throw TestFailure("the slow client was never cut off") }
        }
        withExtendedLifetime(slow) {}
        return (host, listener, sent)
    }
}
