import Foundation
import Testing

/// Roster news held for the roster window still reaches everyone exactly once and in `seq`
/// order, interleaved correctly with what is not held.
@Suite struct RosterWindowTests {
    @Test func aBurstOfJoinsAmongChatsArrivesCompleteAndInOrder() async throws {
        // A long window, so that holding surely happens while the burst runs.
        let server = try await TestServer.start(rosterWindow: .milliseconds(200))
        let host = try await server.joined("Teacher", role: .host)
        let watcher = try await server.joined("Watcher")
        let from = await watcher.lastSeq
        let joiners = try await withThrowingTaskGroup(of: TestClient.self) { group in
            for index in 0..<30 { group.addTask { try await server.joined("Joiner \(index)") } }
            for index in 0..<5 { try await host.request("chat", ["text": "during \(index)"]) }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        try await host.request("chat", ["text": "last"])
        let lastChat = try await within("the last chat") {
            try await watcher.event("chatMessage") { (($0["event"] as? TestClient.JSON)?["message"] as? TestClient.JSON)?["text"] as? String == "last" }
        }
        // Everything up to "last" has arrived (nothing is held past a later message), so the
        // watcher's events are every seq after its join, once each, in order.
        let seqs = await watcher.keptEvents().compactMap { $0["seq"] as? Int }
        let last = try #require(lastChat["seq"] as? Int)
        #expect(seqs == Array(from + 1 ..< last), "seqs \(seqs)")
        let joinedNames = await watcher.keptEvents().filter { TestClient.type(of: $0) == "userJoined" }.count
        #expect(joinedNames == 30)
        withExtendedLifetime(joiners) {}
        await server.stop()
    }
}
