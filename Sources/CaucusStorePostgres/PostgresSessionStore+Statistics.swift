import CaucusStore
import PostgresNIO

/// What PostgreSQL counts of the database's work, for measurements (`caucus bench leases`).
extension PostgresSessionStore {
    /// Transactions committed in this database since the statistics were last reset, by
    /// every client: `pg_stat_database.xact_commit`. Backends report theirs when they go
    /// idle, at most once a second (a busy one) and at the latest ten seconds later.
    public func committedTransactions() async throws -> Int64 {
        try await calling { [self] in
            try await withConnection { connection in
                let rows = try await connection.query(
                    "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()", logger: logger)
                for try await count in rows.decode(Int64.self) { return count }
                throw StoreError(.database, "pg_stat_database has no row for this database.")
            }
        }
    }
}
