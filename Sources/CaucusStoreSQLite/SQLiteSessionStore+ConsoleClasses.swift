import CaucusCore
import CaucusStore
import SQLiteNIO

/// The console's class book (schema version 7): each change reads and writes in one
/// IMMEDIATE transaction, so that SQLite's write lock orders it against any other writer.
extension SQLiteSessionStore {
    public func consoleClass(_ id: String) async throws -> ConsoleClassRecord? {
        try await exclusive {
            try await connection.query("SELECT * FROM console_classes WHERE id = ?1", [.text(id)]).first.map(Self.consoleClass(from:))
        }
    }

    public func changeConsoleClasses<Result: Sendable>(
        id: String, app: String, nameKey: String, _ change: @escaping @Sendable (inout [String: ConsoleClassRecord]) -> Result
    ) async throws -> Result {
        try await exclusive {
            try await transaction(.immediate) {
                let rows = try await connection.query(
                    "SELECT * FROM console_classes WHERE id = ?1 OR (app = ?2 AND name_key = ?3)", [.text(id), .text(app), .text(nameKey)])
                var records: [String: ConsoleClassRecord] = [:]
                for row in rows {
                    let record = try Self.consoleClass(from: row)
                    records[record.id] = record
                }
                let before = records
                let result = change(&records)
                for record in Self.changedConsoleClasses(from: before, to: records) {
                    _ = try await connection.query(
                        """
                        INSERT INTO console_classes (id, app, session, name_key, state, host_generation, created_at, started_at, seen_running)
                        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                        ON CONFLICT (id) DO UPDATE SET state = excluded.state, host_generation = excluded.host_generation,
                            started_at = excluded.started_at, seen_running = excluded.seen_running
                        """,
                        [
                            .text(record.id), .text(record.app), .text(record.session), .text(record.nameKey), .text(record.state.rawValue),
                            .integer(record.hostGeneration), .integer(SQLiteInt64(record.createdAt)),
                            record.startedAt.map { .integer(SQLiteInt64($0)) } ?? .null, .integer(record.seenRunning ? 1 : 0),
                        ])
                }
                return result
            }
        }
    }

    public func forgetConsoleClasses(createdBefore cutoff: Int64) async throws {
        try await exclusive {
            _ = try await connection.query("DELETE FROM console_classes WHERE created_at < ?1", [.integer(SQLiteInt64(cutoff))])
        }
    }

    private static func consoleClass(from row: SQLiteRow) throws -> ConsoleClassRecord {
        let stateText = try row.text("state")
        guard let state = ConsoleClassRecord.State(rawValue: stateText) else {
            throw StoreError(.corruptRow, "Column state should hold opened, started or ended but holds \(stateText).")
        }
        return ConsoleClassRecord(
            app: try row.text("app"), session: try row.text("session"), id: try row.text("id"), state: state,
            hostGeneration: try row.int("host_generation"), createdAt: try row.int64("created_at"), startedAt: try row.optionalInt64("started_at"),
            seenRunning: try row.int64("seen_running") != 0)
    }
}
