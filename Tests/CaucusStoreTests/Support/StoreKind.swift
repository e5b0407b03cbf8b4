import CaucusCore
import CaucusPostgresTestSupport
import CaucusStore
import CaucusStorePostgres
import CaucusStoreSQLite
import Foundation

/// The stores the conformance suite runs against: every test in Conformance/ takes one.
enum StoreKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    /// A fresh, empty database of this kind, reachable again (by a second store, or after a
    /// restart) through `TestDatabase.open()`.
    func freshDatabase() async throws -> TestDatabase {
        switch self {
        case .sqlite:
            // One folder deeper than the temporary folder, so that opening creates folders too.
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-store-\(UUID().uuidString)")
            return TestDatabase(kind: self, address: folder.appendingPathComponent("data/caucus.sqlite").path)
        case .postgres:
            return TestDatabase(kind: self, address: try await TestPostgres.shared.freshDatabase("conformance"))
        }
    }

    /// Names the parameter in test output.
    var description: String { rawValue }
}

/// One database of the suite: a SQLite file or a PostgreSQL database.
struct TestDatabase: Sendable {
    let kind: StoreKind
    /// A file path or a PostgreSQL URL.
    let address: String

    /// A store on this database, ready for calls; `close()` it when done.
    func open(syncPolicy: SyncPolicy = .messages) async throws -> TestStore {
        switch kind {
        case .sqlite:
            return TestStore(store: try await SQLiteSessionStore.open(path: address, syncPolicy: syncPolicy), pool: nil)
        case .postgres:
            // Every PostgreSQL commit is synced, whatever `syncPolicy` (SQLite's alone).
            let store = PostgresSessionStore(location: try PostgresStoreLocation(url: address))
            // The pool runs as the server's service group would run it, for as long as the test needs it.
            let pool = Task { try await store.run() }
            do {
                try await store.prepare()
            } catch {
                pool.cancel()
                throw error
            }
            return TestStore(store: store, pool: pool)
        }
    }

    /// Opens a store, runs `body` with it, and closes it whatever happens.
    func with<T>(_ body: (any SessionStore) async throws -> T) async throws -> T {
        let opened = try await open()
        do {
            let result = try await body(opened.store)
            await opened.close()
            return result
        } catch {
            await opened.close()
            throw error
        }
    }
}

/// A store and, for PostgreSQL, the task running its connection pool.
struct TestStore: Sendable {
    let store: any SessionStore
    let pool: Task<Void, any Error>?

    func close() async {
        try? await store.close()
        pool?.cancel()
        _ = try? await pool?.value
    }
}

extension SessionStore {
    /// Reserves an id and opens the session with its first batch, as the server does on a
    /// first join that was accepted.
    func start(app: String = "demo", _ script: SessionScript, firstBatch: [SequencedEvent]) async throws -> StoredSessionID {
        let id = try await reserveSessionID()
        try await append(firstBatch, to: id, opening: SessionOpening(app: app, name: script.name, createdAt: firstBatch[0].at))
        return id
    }
}
