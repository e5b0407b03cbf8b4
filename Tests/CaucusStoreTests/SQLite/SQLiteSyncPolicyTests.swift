import CaucusCore
import Testing

@testable import CaucusStore
@testable import CaucusStoreSQLite

/// Which commits wait for the disk: SQLite's `synchronous` as the commit ran (1 NORMAL:
/// written to the WAL only; 2 FULL: the WAL synced before the commit returns).
@Suite("SQLite sync policy")
struct SQLiteSyncPolicyTests {
    @Test func byDefaultOnlyCommitsHoldingAMessageAreSynced() async throws {
        try await withTemporaryDatabase { path in
            let store = try await SQLiteSessionStore.open(path: path)
            var script = SessionScript()
            let (host, hostJoin) = try script.join("Ada", claim: .host)
            let id = try await store.start(script, firstBatch: hostJoin)
            #expect(try await store.pragma("synchronous") == "1", "a join is written, not synced")
            try await store.append(try script.run(.chat("hello", to: .room), by: host), to: id)
            #expect(try await store.pragma("synchronous") == "2", "a chat message is synced before it is acknowledged")
            let (_, bobJoin) = try script.join("Bob")
            try await store.append(bobJoin, to: id)
            #expect(try await store.pragma("synchronous") == "1")
            try await store.append(try script.run(.chat("again", to: .room), by: host), to: id)
            #expect(try await store.pragma("synchronous") == "2")
            #expect(try await store.events(of: id, after: 0) == script.log, "whatever the sync, every commit is in the log")
            try await store.close()
        }
    }

    @Test func everyCommitSyncsEveryCommit() async throws {
        try await withTemporaryDatabase { path in
            let store = try await SQLiteSessionStore.open(path: path, syncPolicy: .everyCommit)
            var script = SessionScript()
            let (_, hostJoin) = try script.join("Ada", claim: .host)
            _ = try await store.start(script, firstBatch: hostJoin)
            #expect(try await store.pragma("synchronous") == "2")
            try await store.close()
        }
    }

    @Test func thePolicyReadsTheEventsOfTheCommit() {
        let ended = SequencedEvent(seq: 1, at: .init(milliseconds: 0), event: .sessionEnded(.endedByHost))
        let broadcast = SequencedEvent(seq: 2, at: .init(milliseconds: 0), event: .broadcast(from: nil, text: "hi", at: .init(milliseconds: 0)))
        #expect(SyncPolicy.messages.syncs([ended]) == false)
        #expect(SyncPolicy.messages.syncs([ended, broadcast]) == true)
        #expect(SyncPolicy.everyCommit.syncs([ended]) == true)
    }
}

/// The WAL is copied into the database by a connection of its own, never inside a commit.
@Suite("Checkpointing")
struct CheckpointTests {
    @Test func theWriterNeverCheckpointsAndTheBackgroundCheckpointerDoes() async throws {
        try await withTemporaryDatabase { path in
            let store = try await SQLiteSessionStore.open(path: path)
            #expect(try await store.pragma("wal_autocheckpoint") == "0", "no commit pays for a checkpoint")
            var script = SessionScript()
            let (host, hostJoin) = try script.join("Ada", claim: .host)
            let id = try await store.start(script, firstBatch: hostJoin)
            for index in 1...50 { try await store.append(try script.run(.chat("message \(index)", to: .room), by: host), to: id) }
            let checkpointer = try #require(await store.checkpointer)
            // Liveness only: the checkpointer runs every second; give it a generous while.
            for _ in 0..<400 where await checkpointer.completed == 0 { try await Task.sleep(for: .milliseconds(50)) }
            #expect(await checkpointer.completed > 0)
            // Everything is still there, from the file and its log, to another connection.
            let reader = try await SQLiteSessionStore.open(path: path)
            #expect(try await reader.events(of: id, after: 0) == script.log)
            try await reader.close()
            try await store.close()
        }
    }
}
