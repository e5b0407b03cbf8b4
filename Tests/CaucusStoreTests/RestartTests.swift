import CaucusCore
import Testing

@testable import CaucusStore

@Suite("Surviving a restart")
struct RestartTests {
    @Test func reopeningReturnsLiveSessionsWithTheirFullLogAndNotEndedOnes() async throws {
        try await withTemporaryDatabase { path in
            var live = SessionScript(name: "Class")
            var ended = SessionScript(name: "Seminar")
            let liveID: StoredSessionID
            do {
                let store = try await SQLiteSessionStore.open(path: path)
                liveID = try await store.createSession(app: "demo", name: live.name, at: live.now)
                let endedID = try await store.createSession(app: "demo", name: ended.name, at: ended.now)

                let (host, hostJoin) = try live.join("Ada", claim: .host)
                try await store.append(hostJoin, to: liveID)
                let (bob, bobJoin) = try live.join("Bob")
                try await store.append(bobJoin, to: liveID)
                live.advance(seconds: 5)
                try await store.append(try live.run(.chat("hello", to: .user(host)), by: bob), to: liveID)
                try await store.append(try live.run(.rename(bob, to: "Robert"), by: bob), to: liveID)
                try await store.append(try live.run(.makeManager(bob), by: host), to: liveID)

                let (teacher, teacherJoin) = try ended.join("Eve", claim: .host)
                try await store.append(teacherJoin, to: endedID)
                ended.advance(seconds: 60)
                try await store.append(try ended.run(.endSession, by: teacher), to: endedID)
                try await store.close()
            }

            let reopened = try await SQLiteSessionStore.open(path: path)
            #expect(try await reopened.schemaVersion() == SQLiteSchema.version)
            // What makes a commit survive a killed process: the WAL (synced as SyncPolicyTests show).
            #expect(try await reopened.pragma("journal_mode") == "wal")
            let sessions = try await reopened.liveSessions()
            #expect(sessions == [StoredSession(id: liveID, app: "demo", name: "Class", createdAt: .testEpoch, events: live.log)])
            // What a restart does with them: replaying the log rebuilds the session exactly.
            let rebuilt = SessionState(replaying: sessions.first?.events.map(\.event) ?? [])
            #expect(rebuilt == live.state)

            // The rebuilt session goes on numbering where it left off, and the log still
            // refuses what it already holds.
            let next = try live.run(.chat("back", to: .room), by: UserID(1))
            try await reopened.append(next, to: liveID)
            #expect(next.map(\.seq) == [live.log.count])
            #expect(try await reopened.events(of: liveID, after: live.log.count - 2) == Array(live.log.suffix(2)))
            let error = await #expect(throws: StoreError.self) { try await reopened.append([live.log[0]], to: liveID) }
            #expect(error?.code == .duplicateSeq)
            try await reopened.close()
        }
    }

    @Test func committedEventsAreVisibleToASecondStoreWithoutClosingTheFirst() async throws {
        try await withTemporaryDatabase { path in
            var script = SessionScript()
            let writer = try await SQLiteSessionStore.open(path: path)
            let id = try await writer.createSession(app: "demo", name: script.name, at: script.now)
            let (host, join) = try script.join("Ada", claim: .host)
            try await writer.append(join, to: id)
            try await writer.append(try script.run(.chat("acknowledged", to: .room), by: host), to: id)

            // `writer` is neither closed nor checkpointed: what the second connection reads
            // came from the committed WAL, as it would after the process were killed here.
            let reader = try await SQLiteSessionStore.open(path: path)
            #expect(try await reader.events(of: id, after: 0) == script.log)
            #expect(try await reader.liveSessions().map(\.events) == [script.log])

            // And the other way round: a second writer sees the first one's log end.
            try await reader.append(try script.run(.chat("from the reader", to: .room), by: host), to: id)
            #expect(try await writer.events(of: id, after: 0) == script.log)
            let duplicate = await #expect(throws: StoreError.self) {
                try await writer.append([script.log[script.log.count - 1]], to: id)
            }
            #expect(duplicate?.code == .duplicateSeq)

            try await reader.close()
            try await writer.close()
        }
    }

    @Test func storesSurviveSessionsWithNoEventsYet() async throws {
        try await withTemporaryDatabase { path in
            let store = try await SQLiteSessionStore.open(path: path)
            let id = try await store.createSession(app: "demo", name: "Empty", at: .testEpoch)
            try await store.close()
            let reopened = try await SQLiteSessionStore.open(path: path)
            #expect(try await reopened.liveSessions() == [StoredSession(id: id, app: "demo", name: "Empty", createdAt: .testEpoch, events: [])])
            try await reopened.close()
        }
    }

    @Test func aFileFromANewerSchemaIsRefused() async throws {
        try await withTemporaryDatabase { path in
            let store = try await SQLiteSessionStore.open(path: path)
            try await store.execute("PRAGMA user_version = \(SQLiteSchema.version + 1)")
            try await store.close()
            let error = await #expect(throws: StoreError.self) { try await SQLiteSessionStore.open(path: path) }
            #expect(error?.code == .unsupportedSchema)
        }
    }
}
