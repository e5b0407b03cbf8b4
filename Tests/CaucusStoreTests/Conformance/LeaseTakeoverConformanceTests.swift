import CaucusCore
import CaucusStore
import Testing

/// A takeover while the old holder is still appending, on every store: the database orders
/// the two, and nothing the old holder writes lands after the new holder took the lease.
@Suite("Conformance: a takeover racing the old holder's appends")
struct LeaseTakeoverConformanceTests {
    /// How many appends the old holder may make before the test gives up on it being fenced.
    private let appendLimit = 5_000

    @Test(arguments: StoreKind.allCases)
    func theOldHoldersAppendsStopAtTheTakeover(kind: StoreKind) async throws {
        let database = try await kind.freshDatabase()
        let a = try await database.open()
        let b = try await database.open()
        let nodeA = NodeID("node-a")
        let nodeB = NodeID("node-b")
        let start = Instant.testEpoch
        var script = SessionScript()
        let (host, join) = try script.join("Ada", claim: .host)
        let id = try await a.store.start(script, firstBatch: join)
        let runA = try await a.store.startNodeLease(for: nodeA, until: start.adding(seconds: 10)).owner
        let runB = try await b.store.startNodeLease(for: nodeB, until: start.adding(seconds: 20)).owner
        let first = try await a.store.acquireLease(of: id, for: runA, now: start)

        // A appends one chat after another until refused; it says when its first one landed.
        let (landed, landing) = AsyncStream<Void>.makeStream()
        let appender = Task { [script] in
            var script = script
            var appended: [SequencedEvent] = []
            for index in 1...appendLimit {
                var next = script
                let batch = try next.run(.chat("message \(index)", to: .room), by: host)
                do {
                    try await a.store.append(batch, to: id, opening: nil, lease: first)
                } catch let error as StoreError {
                    landing.finish()
                    return (appended, error.code as StoreError.Code?)
                }
                script = next
                appended += batch
                landing.yield()
            }
            landing.finish()
            return (appended, nil)
        }
        for await _ in landed { break }

        // B takes the lease (A's has expired by B's clock) while A is appending.
        let second = try await b.store.acquireLease(of: id, for: runB, now: start.adding(seconds: 10))
        let endAtTakeover = try await b.store.events(of: id, after: 0).last?.seq ?? 0
        let (appended, refusal) = try await appender.value

        #expect(refusal == .fenced)
        #expect(appended.last?.seq == endAtTakeover, "every append of A landed before the takeover, none after")
        #expect(try await b.store.events(of: id, after: 0) == join + appended)
        // B goes on from where the log ended when it took over.
        let continued = SequencedEvent(seq: endAtTakeover + 1, at: start.adding(seconds: 11), event: appended[0].event)
        try await b.store.append([continued], to: id, opening: nil, lease: second)
        #expect(try await a.store.events(of: id, after: endAtTakeover) == [continued])
        await a.close()
        await b.close()
    }
}
