import CaucusCore
import Foundation
import SQLiteNIO
import Testing

@testable import CaucusStore
@testable import CaucusStoreSQLite

/// What only the SQLite store does: its file, its schema version, its in-memory form, and the
/// migration of files written before a session's row waited for its first append.
@Suite("SQLite store")
struct SQLiteStoreTests {
    @Test func anInMemoryStoreWorksAndIsMigrated() async throws {
        let store = try await SQLiteSessionStore.inMemory()
        #expect(try await store.schemaVersion() == SQLiteSchema.version)
        var script = SessionScript()
        let id = try await store.start(script, firstBatch: try script.join("Ada", claim: .host).1)
        #expect(try await store.events(of: id, after: 0) == script.log)
        try await store.close()
    }

    @Test func aFileIsInWALModeAtTheCurrentVersion() async throws {
        try await withTemporaryDatabase { path in
            let store = try await SQLiteSessionStore.open(path: path)
            #expect(try await store.schemaVersion() == SQLiteSchema.version)
            // What makes a commit survive a killed process: the WAL (synced as SQLiteSyncPolicyTests show).
            #expect(try await store.pragma("journal_mode") == "wal")
            try await store.close()
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

    /// A file of schema version 2 held a row per created session, even one whose first join
    /// was refused, and no name key: the migration drops the empty rows, keys the names, and
    /// hands out ids after every id the file ever gave.
    @Test func aVersion2FileIsMigrated() async throws {
        try await withTemporaryDatabase { path in
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            var live = SessionScript(name: "Économie")
            let join = try live.join("Ada", claim: .host).1
            let body = String(decoding: try JSONEncoder().encode(join[0].event), as: UTF8.self)
            let connection = try await SQLiteConnection.open(storage: .file(path: path))
            for migration in SQLiteSchema.migrations.prefix(2) {
                for case .sql(let sql) in migration { _ = try await connection.query(sql) }
            }
            for statement in [
                "INSERT INTO sessions (app, name, created_at) VALUES ('demo', 'Économie', 0)",
                "INSERT INTO events (session_id, seq, at, body) VALUES (1, 1, 0, '\(body.replacingOccurrences(of: "'", with: "''"))')",
                "INSERT INTO sessions (app, name, created_at) VALUES ('demo', 'Refused', 0)",
                "INSERT INTO sessions (app, name, created_at) VALUES ('demo', 'Deleted', 0)",
                "DELETE FROM sessions WHERE id = 3",
                "PRAGMA user_version = 2",
            ] { _ = try await connection.query(statement) }
            try await connection.close()

            let store = try await SQLiteSessionStore.open(path: path)
            #expect(try await store.schemaVersion() == SQLiteSchema.version)
            #expect(try await store.liveSessions().map(\.name) == ["Économie"], "the refused session's row is gone")
            #expect(try await store.reserveSessionID() == StoredSessionID(rawValue: 4), "after every id given, deleted ones too")
            var again = SessionScript(name: "ÉCONOMIE")
            let againJoin = try again.join("Bob").1
            let taken = await #expect(throws: StoreError.self) { try await store.start(again, firstBatch: againJoin) }
            #expect(taken?.code == .liveNameTaken, "the old row's name key was filled in (Unicode lowercase)")
            try await store.close()
        }
    }

    /// A file of schema version 4 held a lease per session (holder, epoch, expiry): each
    /// holder becomes a node at its first epoch, live until the last of its sessions' leases
    /// would have run out, and its sessions keep their epochs.
    @Test func aVersion4FileWithLeasesIsMigrated() async throws {
        try await withTemporaryDatabase { path in
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let connection = try await SQLiteConnection.open(storage: .file(path: path))
            // On an empty file the name keys need no filling.
            for migration in SQLiteSchema.migrations.prefix(4) {
                for case .sql(let sql) in migration { _ = try await connection.query(sql) }
            }
            let at = Instant.testEpoch
            for statement in [
                "INSERT INTO sessions (app, name, name_key, created_at, lease_holder, lease_epoch, lease_expires_at) VALUES ('demo', 'Maths', 'maths', 0, 'node-a', 3, \(at.adding(seconds: 10).milliseconds))",
                "INSERT INTO sessions (app, name, name_key, created_at, lease_holder, lease_epoch, lease_expires_at) VALUES ('demo', 'Art', 'art', 0, 'node-a', 1, \(at.adding(seconds: 20).milliseconds))",
                "INSERT INTO sessions (app, name, name_key, created_at) VALUES ('demo', 'Solo', 'solo', 0)",
                "PRAGMA user_version = 4",
            ] { _ = try await connection.query(statement) }
            try await connection.close()

            let store = try await SQLiteSessionStore.open(path: path)
            #expect(try await store.schemaVersion() == SQLiteSchema.version)
            let run = NodeIncarnation(node: NodeID("node-a"), epoch: .first)
            #expect(try await store.nodeLease(of: NodeID("node-a")) == NodeLease(owner: run, expiresAt: at.adding(seconds: 20)))
            let maths = try await store.lease(of: StoredSessionID(rawValue: 1))
            #expect(maths.lease == SessionLease(owner: run, epoch: LeaseEpoch(rawValue: 3)))
            #expect(maths.isLive(at: at.adding(seconds: 19)) && !maths.isLive(at: at.adding(seconds: 20)))
            #expect(try await store.lease(of: StoredSessionID(rawValue: 3)).lease == .never)
            #expect(try await store.renewNodeLease(run, until: at.adding(seconds: 30)).count == 2)
            try await store.close()
        }
    }

    @Test func historyEncodesIdsAsPlainNumbers() throws {
        let at = Instant.testEpoch
        let history = SessionHistory(
            id: StoredSessionID(rawValue: 7), app: "demo", name: "Class", startedAt: at, endedAt: nil, endReason: nil,
            users: [UserHistory(userID: UserID(1), name: "Ada", joinedAt: at, leftAt: nil, leaveReason: nil)])
        let json = try JSONEncoder().encode(history)
        let object = try JSONSerialization.jsonObject(with: json) as? [String: Any]
        #expect(object?["id"] as? Int == 7)
        #expect(try JSONDecoder().decode(SessionHistory.self, from: json) == history)
    }
}
