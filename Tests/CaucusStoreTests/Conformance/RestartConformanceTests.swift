import CaucusCore
import CaucusStore
import Testing

/// What a restart reads back, on every store: another store on the same database sees what
/// the first one committed, whether or not the first was closed.
@Suite("Conformance: surviving a restart")
struct RestartConformanceTests {
    @Test(arguments: StoreKind.allCases)
    func reopeningReturnsLiveSessionsWithTheirLogAndNotEndedOnes(kind: StoreKind) async throws {
        let database = try await kind.freshDatabase()
        var live = SessionScript(name: "Class")
        var ended = SessionScript(name: "Seminar")
        let liveID = try await database.with { store in
            let (host, hostJoin) = try live.join("Ada", claim: .host)
            let liveID = try await store.start(live, firstBatch: hostJoin)
            let (bob, bobJoin) = try live.join("Bob")
            try await store.append(bobJoin, to: liveID)
            live.advance(seconds: 5)
            try await store.append(try live.run(.chat("hello", to: .user(host)), by: bob), to: liveID)
            try await store.append(try live.run(.rename(bob, to: "Robert"), by: bob), to: liveID)
            try await store.append(try live.run(.makeManager(bob), by: host), to: liveID)

            let (teacher, teacherJoin) = try ended.join("Eve", claim: .host)
            let endedID = try await store.start(ended, firstBatch: teacherJoin)
            ended.advance(seconds: 60)
            try await store.append(try ended.run(.endSession, by: teacher), to: endedID)
            return liveID
        }

        try await database.with { reopened in
            let sessions = try await reopened.liveSessions()
            #expect(sessions == [StoredSession(id: liveID, app: "demo", name: "Class", createdAt: .testEpoch, events: live.log)])
            // What a restart does with them: replaying the log rebuilds the session exactly.
            #expect(sessions.first?.rebuiltState(limits: .standard) == live.state)

            // The rebuilt session goes on numbering where it left off, and the log still
            // refuses what it already holds.
            let next = try live.run(.chat("back", to: .room), by: UserID(1))
            try await reopened.append(next, to: liveID)
            #expect(next.map(\.seq) == [live.log.count])
            #expect(try await reopened.events(of: liveID, after: live.log.count - 2) == Array(live.log.suffix(2)))
            let error = await #expect(throws: StoreError.self) { try await reopened.append([live.log[0]], to: liveID) }
            #expect(error?.code == .duplicateSeq)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func committedEventsAreVisibleToASecondStoreWithoutClosingTheFirst(kind: StoreKind) async throws {
        let database = try await kind.freshDatabase()
        var script = SessionScript()
        let writer = try await database.open()
        let (host, join) = try script.join("Ada", claim: .host)
        let id = try await writer.store.start(script, firstBatch: join)
        try await writer.store.append(try script.run(.chat("acknowledged", to: .room), by: host), to: id)

        // `writer` is not closed: what the second store reads is what was committed, as it
        // would be after the process were killed here.
        let reader = try await database.open()
        #expect(try await reader.store.events(of: id, after: 0) == script.log)
        #expect(try await reader.store.liveSessions().map(\.events) == [script.log])
        await reader.close()
        await writer.close()
    }
}
