import CaucusCore
import Foundation
import Testing

@Suite(.serialized) struct SlowConsumerTests {
    @Test func aClientThatStopsReadingIsCutOffWhileTheOthersKeepReceiving() async throws {
        let server = try await TestServer.start(outboundQueueLimit: 32)
        let host = try await server.joined("Teacher", role: .host)
        let listener = try await server.joined("Listener")
        // The slow one joins on a bare socket and then never reads again.
        let slow = try RawWebSocket(port: server.port)
        try slow.sendText(#"{"id":1,"op":"join","session":"Class","userName":"Sloth","token":"\#(try server.token(session: "Class"))"}"#)
        _ = try await within("the slow client joins") { try await host.event("userJoined") }
        let text = String(repeating: "x", count: 3_000)
        // The server cuts the slow client off; its seat then waits for a resume, which the
        // host hears (the socket itself cannot tell: a FIN queues behind unread data).
        var sent = 0
        func cutOff() async -> Bool {
            await host.keptEvents().contains { TestClient.type(of: $0) == "userReconnecting" }
        }
        while await !cutOff() {
            try await host.request("chat", ["text": text])
            sent += 1
            if sent > 5_000 { throw TestFailure("the slow client was never cut off") }
        }
        withExtendedLifetime(slow) {}
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
}
