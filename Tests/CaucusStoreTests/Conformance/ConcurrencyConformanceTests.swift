import CaucusCore
import CaucusStore
import Testing

@Suite("Conformance: concurrent use")
struct ConcurrencyConformanceTests {
    @Test(arguments: StoreKind.allCases)
    func concurrentAppendsToDifferentSessionsAllLand(kind: StoreKind) async throws {
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

        try await kind.freshDatabase().with { store in
            let ids = try await withThrowingTaskGroup(of: StoredSessionID.self) { group in
                for (script, appends) in zip(scripts, batches) {
                    group.addTask {
                        let id = try await store.start(app: "load", script, firstBatch: appends[0])
                        for batch in appends.dropFirst() {
                            try await store.append(batch, to: id)
                            // Readers interleave with writers without seeing half a batch.
                            let seen = try await store.events(of: id, after: batch[0].seq - 1)
                            #expect(seen == batch)
                        }
                        return id
                    }
                }
                return try await group.reduce(into: [StoredSessionID]()) { $0.append($1) }
            }

            let live = try await store.liveSessions()
            #expect(Set(live.map(\.id)) == Set(ids))
            for session in live {
                #expect(session.events == scripts.first { $0.name == session.name }?.log)
            }
            #expect(live.map(\.events.count).reduce(0, +) == sessionCount * (appendsPerSession + 1))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func racingFirstAppendsOfOneNameMakeOneSession(kind: StoreKind) async throws {
        let database = try await kind.freshDatabase()
        // Two stores on one database, as two nodes (or two processes) would be.
        let first = try await database.open()
        let second = try await database.open()
        let outcomes = try await withThrowingTaskGroup(of: StoreError.Code?.self) { group in
            for (index, opened) in [first, second, first, second].enumerated() {
                group.addTask {
                    var script = SessionScript(name: "Contested")
                    let join = try script.join("Host \(index)", claim: .host).1
                    do {
                        _ = try await opened.store.start(script, firstBatch: join)
                        return nil
                    } catch let error as StoreError {
                        return error.code
                    }
                }
            }
            return try await group.reduce(into: [StoreError.Code?]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == nil }.count == 1, "\(outcomes)")
        #expect(outcomes.filter { $0 == .liveNameTaken }.count == 3, "\(outcomes)")
        #expect(try await first.store.liveSessions().count == 1)
        await first.close()
        await second.close()
    }
}
