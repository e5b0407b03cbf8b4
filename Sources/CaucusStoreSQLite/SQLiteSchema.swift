import CaucusStore
import CaucusCore
import CaucusStore
import Logging
import SQLiteNIO

/// The database layout, versioned with `PRAGMA user_version`. Migrations are only ever
/// appended: `migrations[i]` takes a database from version `i` to `i + 1`.
enum SQLiteSchema {
    /// One step of a migration: SQL, or a computation SQL cannot do.
    enum Step: ExpressibleByStringLiteral {
        case sql(String)
        /// Fills `sessions.name_key` with `SessionName.key(name)` (Unicode lowercasing, which
        /// SQLite's `lower` does not do).
        case fillNameKeys

        init(stringLiteral sql: String) { self = .sql(sql) }
    }

    static let migrations: [[Step]] = [
        [
            // AUTOINCREMENT so an id is never handed out twice, even after rows are deleted:
            // logs and history may be cited by id long after a session ends.
            """
            CREATE TABLE sessions (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                app TEXT NOT NULL,
                name TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                ended_at INTEGER,
                end_reason TEXT
            )
            """,
            "CREATE INDEX sessions_by_app ON sessions (app, created_at DESC, id DESC)",
            // A restart reads only the live few among possibly many ended sessions.
            "CREATE INDEX live_sessions ON sessions (id) WHERE ended_at IS NULL",
            // Clustered on (session, seq): replay is one range scan, and the key itself is
            // what refuses a duplicate seq.
            """
            CREATE TABLE events (
                session_id INTEGER NOT NULL REFERENCES sessions (id),
                seq INTEGER NOT NULL CHECK (seq > 0),
                at INTEGER NOT NULL,
                body TEXT NOT NULL,
                PRIMARY KEY (session_id, seq)
            ) WITHOUT ROWID
            """,
            """
            CREATE TABLE session_users (
                session_id INTEGER NOT NULL REFERENCES sessions (id),
                user_id INTEGER NOT NULL,
                name TEXT NOT NULL,
                joined_at INTEGER NOT NULL,
                left_at INTEGER,
                leave_reason TEXT,
                PRIMARY KEY (session_id, user_id)
            ) WITHOUT ROWID
            """,
        ],
        [
            // A join's history row is written by the event's own INSERT, so a commit holding
            // only a join is one statement: one trip to SQLite's thread instead of four
            // (BEGIN, event, history row, COMMIT). The other projections stay in
            // `HistoryProjection`; they are rare.
            """
            CREATE TRIGGER project_user_joined AFTER INSERT ON events
            WHEN json_extract(NEW.body, '$.type') = 'userJoined'
            BEGIN
                INSERT INTO session_users (session_id, user_id, name, joined_at)
                VALUES (NEW.session_id, json_extract(NEW.body, '$.user.id'), json_extract(NEW.body, '$.user.name'), NEW.at);
            END
            """
        ],
        [
            // A session's row is written by its first append, no longer when it is created:
            // ids are reserved from this counter (never reused: it starts past every id given).
            "CREATE TABLE session_id_counter (last INTEGER NOT NULL)",
            """
            INSERT INTO session_id_counter (last) SELECT max(
                coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'sessions'), 0),
                coalesce((SELECT max(id) FROM sessions), 0))
            """,
            // Rows of sessions whose first join was refused (or that crashed before it): they
            // were never a session, and would block their name under the index below.
            "DELETE FROM sessions WHERE ended_at IS NULL AND NOT EXISTS (SELECT 1 FROM events WHERE session_id = sessions.id)",
            "ALTER TABLE sessions ADD COLUMN name_key TEXT NOT NULL DEFAULT ''",
            .fillNameKeys,
            // One live session per app and name, whoever writes the file.
            "CREATE UNIQUE INDEX live_session_names ON sessions (app, name_key) WHERE ended_at IS NULL",
            // Snapshots of live sessions: a rebuild reads one and the events after it.
            """
            CREATE TABLE snapshots (
                session_id INTEGER NOT NULL REFERENCES sessions (id),
                seq INTEGER NOT NULL,
                body TEXT NOT NULL,
                PRIMARY KEY (session_id, seq)
            ) WITHOUT ROWID
            """,
        ],
        [
            // A session's lease (several nodes; one in practice on SQLite, same rules as
            // PostgreSQL): the holder, the epoch its writes carry, when it expires. Epoch 0:
            // never leased, which is what every session before this version is.
            "ALTER TABLE sessions ADD COLUMN lease_holder TEXT",
            "ALTER TABLE sessions ADD COLUMN lease_epoch INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE sessions ADD COLUMN lease_expires_at INTEGER",
        ],
        [
            // Leases per node, as on PostgreSQL (schema 3 there): a row per node, and on each
            // session its owner node's epoch; the session is live while that row is, at that
            // epoch. Leases taken before become their holder's first run, live until the
            // last of its sessions' leases would have run out.
            "CREATE TABLE nodes (id TEXT PRIMARY KEY, epoch INTEGER NOT NULL CHECK (epoch > 0), expires_at INTEGER NOT NULL) WITHOUT ROWID",
            "ALTER TABLE sessions ADD COLUMN lease_owner_epoch INTEGER",
            """
            INSERT INTO nodes (id, epoch, expires_at)
            SELECT lease_holder, 1, max(coalesce(lease_expires_at, 0)) FROM sessions WHERE lease_holder IS NOT NULL GROUP BY lease_holder
            """,
            "UPDATE sessions SET lease_owner_epoch = 1 WHERE lease_holder IS NOT NULL",
            "ALTER TABLE sessions DROP COLUMN lease_expires_at",
        ],
        [
            // The console's classes (`ConsoleClassRecord`), until now a JSON file of the data
            // folder: a change reads a name's classes and writes them in one IMMEDIATE
            // transaction.
            """
            CREATE TABLE console_classes (
                id TEXT PRIMARY KEY,
                app TEXT NOT NULL,
                session TEXT NOT NULL,
                name_key TEXT NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('opened', 'started', 'ended')),
                host_generation INTEGER NOT NULL CHECK (host_generation >= 0),
                created_at INTEGER NOT NULL,
                started_at INTEGER,
                seen_running INTEGER NOT NULL CHECK (seen_running IN (0, 1))
            ) WITHOUT ROWID
            """,
            "CREATE INDEX console_classes_by_name ON console_classes (app, name_key)",
            "CREATE INDEX console_classes_by_age ON console_classes (created_at)",
        ],
    ]

    static var version: Int { migrations.count }

    /// Per-connection settings, then the schema. Runs before the store serves any call.
    static func prepare(_ connection: SQLiteConnection, isFile: Bool, logger: Logger) async throws {
        // sqlite-nio's own busy handler retries at once and forever; a bounded, sleeping wait
        // turns a stuck writer in another process into an error instead of a spinning thread.
        _ = try await connection.query("PRAGMA busy_timeout = 10000")
        if isFile {
            // WAL lets readers (a second store, a backup) proceed while a session appends.
            let mode = try await connection.query("PRAGMA journal_mode = WAL").first?.column("journal_mode")?.string
            if mode?.lowercased() != "wal" {
                logger.warning("SQLite did not switch to WAL", metadata: ["journal_mode": "\(mode ?? "?")"])
            }
        }
        // FULL syncs the WAL on every commit: an acknowledged chat message survives a power cut
        // or a killed process, which NORMAL does not promise in WAL mode.
        _ = try await connection.query("PRAGMA synchronous = FULL")
        _ = try await connection.query("PRAGMA foreign_keys = ON")
        try await migrate(connection, logger: logger)
    }

    static func currentVersion(_ connection: SQLiteConnection) async throws -> Int {
        let row = try await connection.query("PRAGMA user_version").first
        return row?.column("user_version")?.integer.map { Int($0) } ?? 0
    }

    private static func migrate(_ connection: SQLiteConnection, logger: Logger) async throws {
        // IMMEDIATE, and the version read inside it: two processes opening a new file at once
        // must not both create the tables.
        _ = try await connection.query("BEGIN IMMEDIATE")
        do {
            let found = try await currentVersion(connection)
            guard found <= version else {
                throw StoreError(
                    .unsupportedSchema, "The database has schema version \(found); this build knows up to \(version).")
            }
            for step in found..<version {
                for statement in migrations[step] { try await run(statement, on: connection) }
                logger.info("Migrated session store schema", metadata: ["version": "\(step + 1)"])
            }
            // PRAGMA takes no bound parameters; `version` is our own integer.
            if found < version { _ = try await connection.query("PRAGMA user_version = \(version)") }
            _ = try await connection.query("COMMIT")
        } catch {
            _ = try? await connection.query("ROLLBACK")
            throw error
        }
    }

    private static func run(_ step: Step, on connection: SQLiteConnection) async throws {
        switch step {
        case .sql(let sql):
            _ = try await connection.query(sql)
        case .fillNameKeys:
            for row in try await connection.query("SELECT id, name FROM sessions") {
                _ = try await connection.query(
                    "UPDATE sessions SET name_key = ?1 WHERE id = ?2",
                    [.text(SessionName.key(try row.text("name"))), SQLiteData(try row.int("id"))])
            }
        }
    }
}
