import CaucusCore
import Testing

@testable import CaucusStore

@Suite("Concurrent use")
struct ConcurrencyTests {
    @Test func concurrentAppendsToDifferentSessionsAllLand() async throws {
        let sessionCount = 20
        let appendsPerSession = 50
        // Each session's log is decided up front by the core: one join, then chats, one
        // append per command as the server would make them.
        var scripts: [SessionScript] = []
        var batches: [[[SequencedEvent]]] = []
        for index in 0..<sessionCount {
            var script = SessionScript(name: "Room \(index)")
            let (host, join) = try script.join("Host \(index)", claim: .host)
            var appends = [join]
            for message in 1..<appendsPerSession {
                script.advance(seconds: 1)
                appends.append(try script.run(.chat("message \(message)", to: .room), by: host))
            }
            scripts.append(script)
            batches.append(appends)
        }

        try await withTemporaryDatabase { path in
            let store = try await SQLiteSessionStore.open(path: path)
            var ids: [StoredSessionID] = []
            for script in scripts {
                ids.append(try await store.createSession(app: "load", name: script.name, at: script.now))
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (id, appends) in zip(ids, batches) {
                    group.addTask {
                        for batch in appends {
                            try await store.append(batch, to: id)
                            // Readers interleave with writers without seeing half a batch.
                            let seen = try await store.events(of: id, after: batch[0].seq - 1)
                            #expect(seen == batch)
                        }
                    }
                }
                try await group.waitForAll()
            }

            for (id, script) in zip(ids, scripts) {
                #expect(try await store.events(of: id, after: 0) == script.log)
            }
            let live = try await store.liveSessions()
            #expect(live.count == sessionCount)
            #expect(live.map(\.events.count).reduce(0, +) == sessionCount * (appendsPerSession + 1))
            try await store.close()
        }
    }
}
