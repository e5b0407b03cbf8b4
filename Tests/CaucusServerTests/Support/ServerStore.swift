import CaucusPostgresTestSupport
import CaucusStore
import CaucusStorePostgres
import CaucusStoreSQLite
import CaucusTestSupport

/// The stores a real `caucus serve` is tested on: the embedded SQLite file in its data folder,
/// and a real PostgreSQL server (`--store postgres://…`).
enum ServerStore: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    /// The `--store` URL of a fresh database (nil: SQLite in the data folder).
    func freshDatabase() async throws -> String? {
        switch self {
        case .sqlite: nil
        case .postgres: try await TestPostgres.shared.freshDatabase("server")
        }
    }

    var description: String { rawValue }
}

extension ServerStore {
    /// What the store of a stopped server holds (`database` as `freshDatabase` gave it).
    func liveSessions(folder: String, database: String?, replayDepth: Int) async throws -> [StoredSession] {
        switch self {
        case .sqlite:
            let store = try await SQLiteSessionStore.open(path: folder + "/caucus.sqlite")
            let sessions = try await store.liveSessions(replayDepth: replayDepth)
            try await store.close()
            return sessions
        case .postgres:
            guard let database else { throw TestFailure("no database") }
            let store = PostgresSessionStore(location: try PostgresStoreLocation(url: database))
            let pool = Task { try await store.run() }
            defer { pool.cancel() }
            try await store.prepare()
            return try await store.liveSessions(replayDepth: replayDepth)
        }
    }
}
