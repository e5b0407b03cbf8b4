import CaucusCore
import CaucusStore
import Testing

/// Appending to a session's log, on every store.
@Suite("Conformance: appending to a session's log")
struct AppendConformanceTests {
    /// A live session with a host and a participant who chatted: four events in three appends.
    private func seeded(_ store: any SessionStore) async throws -> (StoredSessionID, SessionScript, host: UserID) {
        var script = SessionScript()
        let (host, hostJoin) = try script.join("Ada", claim: .host)
        let id = try await store.start(script, firstBatch: hostJoin)
        script.advance(seconds: 1)
        let (bob, bobJoin) = try script.join("Bob")
        try await store.append(bobJoin, to: id)
        script.advance(seconds: 1)
        try await store.append(try script.run(.chat("hello", to: .room), by: bob), to: id)
        return (id, script, host)
    }

    @Test(arguments: StoreKind.allCases)
    func appendedEventsReadBackInOrder(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            let (id, script, _) = try await seeded(store)
            #expect(script.log.map(\.seq) == [1, 2, 3, 4])
            #expect(try await store.events(of: id, after: 0) == script.log)
            let live = try await store.liveSessions()
            #expect(live == [StoredSession(id: id, app: "demo", name: "Class", createdAt: .testEpoch, events: script.log)])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aLargeBatchIsStoredWholeAndReadByASecondStore(kind: StoreKind) async throws {
        let database = try await kind.freshDatabase()
        let writer = try await database.open()
        let reader = try await database.open()
        var script = SessionScript()
        let (host, hostJoin) = try script.join("Ada", claim: .host)
        let id = try await writer.store.start(script, firstBatch: hostJoin)
        var batch: [SequencedEvent] = []
        for index in 1...450 { batch += try script.run(.chat("message \(index)", to: .room), by: host) }
        try await writer.store.append(batch, to: id)
        #expect(try await reader.store.events(of: id, after: 0) == script.log, "read back by another store, from the database")
        // The next batch goes on from where this one ended; a repeat of its last event is refused.
        let refused = await #expect(throws: StoreError.self) { try await writer.store.append([batch[batch.count - 1]], to: id) }
        #expect(refused?.code == .duplicateSeq)
        // And the other way round: the second store appends, the first sees the log's new end.
        try await reader.store.append(try script.run(.chat("from the reader", to: .room), by: host), to: id)
        let stale = await #expect(throws: StoreError.self) { try await writer.store.append([script.log[script.log.count - 1]], to: id) }
        #expect(stale?.code == .duplicateSeq)
        try await writer.store.append(try script.run(.chat("after", to: .room), by: host), to: id)
        #expect(try await reader.store.events(of: id, after: 0) == script.log)
        await reader.close()
        await writer.close()
    }

    @Test(arguments: StoreKind.allCases)
    func eventsAfterReturnsOnlyLaterEvents(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            let (id, script, _) = try await seeded(store)
            #expect(try await store.events(of: id, after: 2) == Array(script.log[2...]))
            #expect(try await store.events(of: id, after: 3).map(\.seq) == [4])
            #expect(try await store.events(of: id, after: 4).isEmpty)
            #expect(try await store.events(of: id, after: 99).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func duplicateSeqThrowsAndChangesNothing(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            var (id, script, _) = try await seeded(store)
            let before = try await store.history(app: "demo", limit: 10)
            let stored = script.log

            // Event 4 again, followed by a genuinely new join: the whole batch must be refused.
            let (_, cyJoin) = try script.join("Cy")
            let error = await #expect(throws: StoreError.self) { try await store.append([stored[3]] + cyJoin, to: id) }
            #expect(error?.code == .duplicateSeq)
            let rewritten = SequencedEvent(seq: 1, at: stored[0].at, event: stored[3].event)
            let overwrite = await #expect(throws: StoreError.self) { try await store.append([rewritten], to: id) }
            #expect(overwrite?.code == .duplicateSeq)

            #expect(try await store.events(of: id, after: 0) == stored)
            #expect(try await store.history(app: "demo", limit: 10) == before)

            // Nothing was half-written: the new join alone still goes in as event 5.
            try await store.append(cyJoin, to: id)
            #expect(try await store.events(of: id, after: 0) == script.log)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aFailedBatchRollsBackEntirely(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            let (id, script, host) = try await seeded(store)
            let at = script.now.adding(seconds: 1)
            // A corrupt batch whose second event fails only in its history update (user 1 is
            // already in the session): the first event, already inserted, must go too.
            let chat = ChatMessage(id: MessageID(9), from: host, scope: .room(.main), text: "lost", sentAt: at)
            let rejoin = SessionUser(id: host, name: "Ada again", identity: nil, claim: .host, joinedAt: at)
            let batch = [
                SequencedEvent(seq: 5, at: at, event: .chatMessage(chat)),
                SequencedEvent(seq: 6, at: at, event: .userJoined(rejoin, becomesHost: false)),
            ]
            let error = await #expect(throws: StoreError.self) { try await store.append(batch, to: id) }
            #expect(error?.code == .database)
            #expect(try await store.events(of: id, after: 0) == script.log)
            #expect(try await store.history(app: "demo", limit: 1).first?.users.map(\.name) == ["Ada", "Bob"])
            // The log's end did not move either: event 5 is still the next one.
            try await store.append([batch[0]], to: id)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func gapsAndDisorderAreRefused(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            var (id, script, host) = try await seeded(store)
            let first = try script.run(.chat("one", to: .room), by: host)[0]
            let second = try script.run(.chat("two", to: .room), by: host)[0]

            let gap = await #expect(throws: StoreError.self) { try await store.append([second], to: id) }
            #expect(gap?.code == .outOfOrder)
            let reversed = await #expect(throws: StoreError.self) { try await store.append([second, first], to: id) }
            #expect(reversed?.code == .outOfOrder)

            try await store.append([first, second], to: id)
            #expect(try await store.events(of: id, after: 4) == [first, second])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func unknownAndEndedSessionsAreRefused(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            var (id, script, host) = try await seeded(store)
            let missing = StoredSessionID(rawValue: 404)

            let unknownAppend = await #expect(throws: StoreError.self) { try await store.append(Array(script.log.suffix(1)), to: missing) }
            #expect(unknownAppend?.code == .unknownSession)
            let unknownRead = await #expect(throws: StoreError.self) { try await store.events(of: missing, after: 0) }
            #expect(unknownRead?.code == .unknownSession)

            try await store.append(try script.run(.endSession, by: host), to: id)
            let late = SequencedEvent(seq: 6, at: script.now, event: .broadcast(from: nil, text: "late", at: script.now))
            let ended = await #expect(throws: StoreError.self) { try await store.append([late], to: id) }
            #expect(ended?.code == .sessionEnded)
            #expect(try await store.events(of: id, after: 0) == script.log)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anEmptyAppendIsANoOp(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            let (id, script, _) = try await seeded(store)
            try await store.append([], to: id)
            #expect(try await store.events(of: id, after: 0) == script.log)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aClosedStoreRefusesCallsAndClosesTwiceHarmlessly(kind: StoreKind) async throws {
        let opened = try await kind.freshDatabase().open()
        try await opened.store.close()
        let error = await #expect(throws: StoreError.self) { try await opened.store.liveSessions() }
        #expect(error?.code == .closed)
        try await opened.store.close()
        await opened.close()
    }
}
