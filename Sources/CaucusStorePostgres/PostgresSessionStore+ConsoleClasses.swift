import CaucusCore
import CaucusStore
import PostgresNIO

/// The console's class book, shared by every node (schema version 5). A change holds, for its
/// transaction, an advisory lock on its class's app and name and a row lock on each class it
/// read: two nodes opening a class of one name, or rotating one host link, run one after the
/// other, the second reading what the first wrote.
extension PostgresSessionStore {
    /// The first key of the two-key advisory locks on class names ("cc" in ASCII): the two-key
    /// locks are a key space of their own, apart from the one-key migration and node locks.
    static let consoleClassLock: Int32 = 0x63_63

    public func consoleClass(_ id: String) async throws -> ConsoleClassRecord? {
        try await calling { [self] in
            try await withConnection { connection in
                let rows = try await connection.query("SELECT \(unescaped: Self.consoleClassColumns) FROM console_classes WHERE id = \(id)", logger: logger)
                for try await row in rows.decode(Self.ConsoleClassRow.self) { return try Self.consoleClass(from: row) }
                return nil
            }
        }
    }

    public func changeConsoleClasses<Result: Sendable>(
        id: String, app: String, nameKey: String, _ change: @escaping @Sendable (inout [String: ConsoleClassRecord]) -> Result
    ) async throws -> Result {
        try await calling { [self] in
            try await transaction { connection in
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(\(Self.consoleClassLock), hashtext(\(app + "\n" + nameKey)))", logger: logger)
                let rows = try await connection.query(
                    """
                    SELECT \(unescaped: Self.consoleClassColumns) FROM console_classes
                    WHERE id = \(id) OR (app = \(app) AND name_key = \(nameKey)) FOR UPDATE
                    """, logger: logger)
                var records: [String: ConsoleClassRecord] = [:]
                for try await row in rows.decode(Self.ConsoleClassRow.self) {
                    let record = try Self.consoleClass(from: row)
                    records[record.id] = record
                }
                let before = records
                let result = change(&records)
                for record in Self.changedConsoleClasses(from: before, to: records) {
                    try await connection.query(
                        """
                        INSERT INTO console_classes (id, app, session, name_key, state, host_generation, created_at, started_at, seen_running)
                        VALUES (\(record.id), \(record.app), \(record.session), \(record.nameKey), \(record.state.rawValue),
                            \(Int64(record.hostGeneration)), \(record.createdAt), \(record.startedAt), \(record.seenRunning))
                        ON CONFLICT (id) DO UPDATE SET state = excluded.state, host_generation = excluded.host_generation,
                            started_at = excluded.started_at, seen_running = excluded.seen_running
                        """, logger: logger)
                }
                return result
            }
        }
    }

    public func forgetConsoleClasses(createdBefore cutoff: Int64) async throws {
        try await calling { [self] in
            try await withConnection { connection in
                try await connection.query("DELETE FROM console_classes WHERE created_at < \(cutoff)", logger: logger)
                return ()
            }
        }
    }

    private typealias ConsoleClassRow = (String, String, String, String, Int64, Int64, Int64?, Bool, String)
    private static let consoleClassColumns = "id, app, session, state, host_generation, created_at, started_at, seen_running, name_key"

    private static func consoleClass(from row: ConsoleClassRow) throws -> ConsoleClassRecord {
        let (id, app, session, stateText, generation, createdAt, startedAt, seenRunning, _) = row
        guard let state = ConsoleClassRecord.State(rawValue: stateText) else {
            throw StoreError(.corruptRow, "Column state should hold opened, started or ended but holds \(stateText).")
        }
        return ConsoleClassRecord(
            app: app, session: session, id: id, state: state, hostGeneration: Int(generation), createdAt: createdAt, startedAt: startedAt,
            seenRunning: seenRunning)
    }
}
