import CaucusCore
import CaucusStore
import Testing

/// A session's latest snapshot, and what a rebuild reads: the snapshot plus the events after
/// it, on every store.
@Suite("Conformance: snapshots")
struct SnapshotConformanceTests {
    /// A session of `chats` messages after a host's and a participant's joins.
    private func chatted(_ chats: Int) throws -> (SessionScript, [[SequencedEvent]], host: UserID) {
        var script = SessionScript()
        let (host, hostJoin) = try script.join("Ada", claim: .host)
        let (_, bobJoin) = try script.join("Bob")
        var batches = [hostJoin, bobJoin]
        for index in 1...chats { batches.append(try script.run(.chat("message \(index)", to: .room), by: host)) }
        return (script, batches, host)
    }

    @Test(arguments: StoreKind.allCases)
    func aRebuildReadsTheLatestSnapshotAndOnlyTheEventsAfterIt(kind: StoreKind) async throws {
        let database = try await kind.freshDatabase()
        var (script, batches, host) = try chatted(10)
        let id = try await database.with { store in
            let id = try await store.start(script, firstBatch: batches[0])
            var replayed = SessionState()
            for sequenced in batches[0] { replayed.apply(sequenced.event) }
            for batch in batches.dropFirst() {
                try await store.append(batch, to: id)
                for sequenced in batch { replayed.apply(sequenced.event) }
                // A snapshot after event 5 and one after event 9; the later one is kept.
                if let last = batch.last?.seq, last == 5 || last == 9 {
                    try await store.saveSnapshot(StoredSnapshot(seq: last, state: replayed), of: id)
                }
            }
            // The same seq again changes nothing.
            try await store.saveSnapshot(StoredSnapshot(seq: 9, state: replayed), of: id)
            return id
        }
        try await database.with { store in
            let end = script.log.count
            #expect(end == 13, "2 events for the first join, 1 for the second, 10 chats")
            let live = try #require(try await store.liveSessions().first)
            #expect(live.id == id)
            #expect(live.snapshot?.seq == 9, "the latest")
            #expect(live.events.map(\.seq) == Array(10...end), "only the tail after the snapshot")
            #expect(live.lastSeq == end)
            #expect(live.rebuiltState(limits: .standard) == script.state, "snapshot + tail = the whole log")

            // A rebuild that must be able to replay 5 events starts from the latest snapshot
            // at least 5 events behind the log's end; one that must replay 20, from nothing.
            let deeper = try #require(try await store.liveSessions(replayDepth: 5).first)
            #expect(deeper.snapshot?.seq == 5)
            #expect(deeper.events.map(\.seq) == Array(6...end))
            #expect(deeper.rebuiltState(limits: .standard) == script.state)
            let whole = try #require(try await store.liveSessions(replayDepth: 20).first)
            #expect(whole.snapshot == nil)
            #expect(whole.events == script.log)
            // The whole log is still there for a resuming client.
            #expect(try await store.events(of: id, after: 0) == script.log)
            // And the session goes on from the log's end.
            try await store.append(try script.run(.chat("after", to: .room), by: host), to: id)
            #expect(try await store.events(of: id, after: script.log.count - 1).map(\.seq) == [script.log.count])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aSnapshotAheadOfTheLogIsRefused(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            let (script, batches, _) = try chatted(2)
            let id = try await store.start(script, firstBatch: batches[0])
            #expect(batches[0].map(\.seq) == [1, 2])
            let ahead = await #expect(throws: StoreError.self) {
                try await store.saveSnapshot(StoredSnapshot(seq: 3, state: script.state), of: id)
            }
            #expect(ahead?.code == .outOfOrder)
            let unknown = await #expect(throws: StoreError.self) {
                try await store.saveSnapshot(StoredSnapshot(seq: 1, state: script.state), of: StoredSessionID(rawValue: 404))
            }
            #expect(unknown?.code == .unknownSession)
            #expect(try await store.liveSessions().first?.snapshot == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aSnapshotKeepsWhatOnlyTheServerKnows(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            var script = SessionScript()
            let batch = try script.run(
                .join(JoinRequest(sessionName: script.name, userName: "Ada", claim: .host, password: "sesame")))
            let id = try await store.start(script, firstBatch: batch)
            try await store.saveSnapshot(StoredSnapshot(seq: 1, state: script.state), of: id)
            let snapshot = try #require(try await store.liveSessions().first?.snapshot)
            #expect(snapshot.state.password == "sesame")
            #expect(snapshot.state.users.values.first?.claim == .host)
            #expect(snapshot.state == script.state)
        }
    }
}
