import CaucusStore
import Logging
import PostgresNIO

/// The database layout, versioned in the `caucus_schema` table. Migrations are only ever
/// appended: `migrations[i]` takes a database from version `i` to `i + 1`. Several nodes may
/// start at once against one database: the migration runs under a transaction-scoped advisory
/// lock, so exactly one of them creates the tables and the others find them made.
enum PostgresSchema {
    static let migrations: [[String]] = [
        [
            // Ids are reserved from it before a session's first append writes its row.
            "CREATE SEQUENCE session_ids",
            // `last_seq` is where the log ends: an append moves it with a compare-and-set
            // (`WHERE last_seq = first - 1`), which also serializes appenders of one session.
            """
            CREATE TABLE sessions (
                id BIGINT PRIMARY KEY,
                app TEXT NOT NULL,
                name TEXT NOT NULL,
                name_key TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                ended_at BIGINT,
                end_reason TEXT,
                last_seq BIGINT NOT NULL
            )
            """,
            "CREATE INDEX sessions_by_app ON sessions (app, created_at DESC, id DESC)",
            // A restart reads only the live few among possibly many ended sessions.
            "CREATE INDEX live_sessions ON sessions (id) WHERE ended_at IS NULL",
            // One live session per app and name, whichever node writes it.
            "CREATE UNIQUE INDEX live_session_names ON sessions (app, name_key) WHERE ended_at IS NULL",
            // The key itself refuses a duplicate seq.
            """
            CREATE TABLE events (
                session_id BIGINT NOT NULL REFERENCES sessions (id),
                seq BIGINT NOT NULL CHECK (seq > 0),
                at BIGINT NOT NULL,
                body TEXT NOT NULL,
                PRIMARY KEY (session_id, seq)
            )
            """,
            """
            CREATE TABLE session_users (
                session_id BIGINT NOT NULL REFERENCES sessions (id),
                user_id BIGINT NOT NULL,
                name TEXT NOT NULL,
                joined_at BIGINT NOT NULL,
                left_at BIGINT,
                leave_reason TEXT,
                PRIMARY KEY (session_id, user_id)
            )
            """,
            // Snapshots of live sessions: a rebuild reads one and the events after it.
            """
            CREATE TABLE snapshots (
                session_id BIGINT NOT NULL REFERENCES sessions (id),
                seq BIGINT NOT NULL,
                body TEXT NOT NULL,
                PRIMARY KEY (session_id, seq)
            )
            """,
        ],
        [
            // A session's lease (several nodes): the holder, the epoch its writes carry, and
            // when it expires. On the session's own row, so that taking the lease and an
            // append's compare-and-set on `last_seq` lock the same row: an append checks the
            // epoch in its `UPDATE ... WHERE` and waits behind, then re-checks against, a
            // takeover under way. Epoch 0: never leased.
            "ALTER TABLE sessions ADD COLUMN lease_holder TEXT",
            "ALTER TABLE sessions ADD COLUMN lease_epoch BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE sessions ADD COLUMN lease_expires_at BIGINT",
        ],
        [
            // Leases per node, not per session: one row per node, renewed once per renewal
            // period whatever the number of its sessions. A session names its owner node
            // (`lease_holder`) and that node's epoch (the run that owns it); it is live while
            // the node's row is, at that epoch. Its own epoch (`lease_epoch`) fences writes
            // as before.
            "CREATE TABLE nodes (id TEXT PRIMARY KEY, epoch BIGINT NOT NULL CHECK (epoch > 0), expires_at BIGINT NOT NULL)",
            "ALTER TABLE sessions ADD COLUMN lease_owner_epoch BIGINT",
            // Leases taken before: each holder becomes a node at its first epoch, live until the
            // last of its sessions' leases would have run out, so nothing moves at the upgrade
            // that would not have moved anyway.
            """
            INSERT INTO nodes (id, epoch, expires_at)
            SELECT lease_holder, 1, max(coalesce(lease_expires_at, 0)) FROM sessions WHERE lease_holder IS NOT NULL GROUP BY lease_holder
            """,
            "UPDATE sessions SET lease_owner_epoch = 1 WHERE lease_holder IS NOT NULL",
            "ALTER TABLE sessions DROP COLUMN lease_expires_at",
            "ALTER TABLE sessions ADD CONSTRAINT lease_owner_whole CHECK ((lease_holder IS NULL) = (lease_owner_epoch IS NULL))",
            // A node's renewal reads the sessions it owns.
            "CREATE INDEX live_sessions_by_owner ON sessions (lease_holder, lease_owner_epoch) WHERE ended_at IS NULL",
        ],
        [
            // The fingerprint of the server key the cluster's nodes sign resume secrets with
            // (one row): a node started with another key is refused while a node of this key
            // runs (`ClusterStore.agreeOnServerKey`).
            "CREATE TABLE cluster_identity (id INTEGER PRIMARY KEY CHECK (id = 1), server_key_fingerprint TEXT NOT NULL)",
        ],
        [
            // The console's classes (`ConsoleClassRecord`), until now a JSON file in each
            // node's data folder: one book for the cluster. A change locks its class's name
            // (an advisory lock, `PostgresSessionStore.consoleClassLock`) and its rows, so two
            // nodes opening a class of one name, or rotating one host link, are ordered.
            """
            CREATE TABLE console_classes (
                id TEXT PRIMARY KEY,
                app TEXT NOT NULL,
                session TEXT NOT NULL,
                name_key TEXT NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('opened', 'started', 'ended')),
                host_generation BIGINT NOT NULL CHECK (host_generation >= 0),
                created_at BIGINT NOT NULL,
                started_at BIGINT,
                seen_running BOOLEAN NOT NULL
            )
            """,
            "CREATE INDEX console_classes_by_name ON console_classes (app, name_key)",
            "CREATE INDEX console_classes_by_age ON console_classes (created_at)",
        ],
    ]

    static var version: Int { migrations.count }

    /// A constant of our own for `pg_advisory_xact_lock` ("caucus" in ASCII).
    static let migrationLock: Int64 = 0x63_61_75_63_75_73

    /// Brings the database to `version`, refusing one written by a newer build.
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("BEGIN", logger: logger)
        do {
            try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
            try await connection.query("CREATE TABLE IF NOT EXISTS caucus_schema (version INTEGER NOT NULL)", logger: logger)
            let found = try await currentVersion(connection, logger: logger)
            guard found <= version else {
                throw StoreError(.unsupportedSchema, "The database has schema version \(found); this build knows up to \(version).")
            }
            for step in found..<version {
                for statement in migrations[step] { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                logger.info("Migrated session store schema", metadata: ["version": "\(step + 1)"])
            }
            if found < version {
                try await connection.query("DELETE FROM caucus_schema", logger: logger)
                try await connection.query("INSERT INTO caucus_schema (version) VALUES (\(version))", logger: logger)
            }
            try await connection.query("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    static func currentVersion(_ connection: PostgresConnection, logger: Logger) async throws -> Int {
        let rows = try await connection.query("SELECT max(version) FROM caucus_schema", logger: logger)
        for try await version in rows.decode(Int?.self) { return version ?? 0 }
        return 0
    }
}
