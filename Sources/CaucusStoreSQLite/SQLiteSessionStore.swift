import CaucusCore
import CaucusStore
import Foundation
import Logging
import SQLiteNIO

/// The embedded session store: one SQLite file, one connection.
///
/// Every call holds the connection for its whole length (see `exclusive`), because an actor
/// alone does not serialize async work: while one append awaits its INSERT, another call would
/// otherwise run on the same connection, inside the first one's transaction.
public actor SQLiteSessionStore: SessionStore {
    let connection: SQLiteConnection
    let logger: Logger
    let coding = StoredCoding()
    let syncPolicy: SyncPolicy
    /// Whether the connection is at `synchronous = FULL` now (else NORMAL).
    private var syncingCommits = true
    /// The last seq of each live session this store appended to, so that an append needs no
    /// read first (each query is a trip to SQLite's thread and back).
    private var knownEnds: [StoredSessionID: Int] = [:]
    /// Keeps the WAL short off the writer's path (file stores only).
    private(set) var checkpointer: WALCheckpointer?
    private var isClosed = false
    private var isBusy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    private init(connection: SQLiteConnection, syncPolicy: SyncPolicy, logger: Logger) {
        self.connection = connection
        self.syncPolicy = syncPolicy
        self.logger = logger
    }

    deinit {
        // sqlite-nio asserts that a connection was closed before it is freed; a store dropped
        // without `close()` (a crashed test, a server shutting down in a hurry) must not take
        // the process down with it. The close job keeps the connection alive until it runs.
        if !connection.isClosed { connection.close().whenComplete { _ in } }
    }

    /// Opens (creating if needed) the database file at `path`, creating parent folders, and
    /// migrates the schema.
    public static func open(
        path: String, syncPolicy: SyncPolicy = .messages, logger: Logger = Logger(label: "caucus.store")
    ) async throws -> SQLiteSessionStore {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw StoreError(.cannotOpen, "Cannot create the folder \(folder.path) for \(path): \(error)")
        }
        let store = try await open(.file(path: path), syncPolicy: syncPolicy, logger: logger)
        try await store.checkpointInTheBackground(path: path)
        return store
    }

    /// How often the background checkpointer runs (see `WALCheckpointer`).
    static let checkpointInterval = Duration.seconds(1)

    private func checkpointInTheBackground(path: String) async throws {
        do {
            _ = try await connection.query("PRAGMA wal_autocheckpoint = 0")
            checkpointer = try await WALCheckpointer.start(path: path, every: Self.checkpointInterval, logger: logger)
        } catch {
            try? await close()
            throw StoreError(.cannotOpen, "Cannot start checkpointing \(path): \(error)")
        }
    }

    /// An in-memory store (tests). It lives as long as the store and is seen by no one else.
    public static func inMemory(logger: Logger = Logger(label: "caucus.store")) async throws -> SQLiteSessionStore {
        try await open(.memory, logger: logger)
    }

    private static func open(
        _ storage: SQLiteConnection.Storage, syncPolicy: SyncPolicy = .messages, logger: Logger
    ) async throws -> SQLiteSessionStore {
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(storage: storage, logger: logger)
        } catch {
            throw StoreError(.cannotOpen, "Cannot open \(storage): \(error)")
        }
        do {
            try await SQLiteSchema.prepare(connection, isFile: storage != .memory, logger: logger)
        } catch {
            try? await connection.close()
            throw StoreError.database(error)
        }
        return SQLiteSessionStore(connection: connection, syncPolicy: syncPolicy, logger: logger)
    }

    /// Waits for calls already admitted, then closes. Closing twice is harmless.
    public func close() async throws {
        await acquire()
        defer { admitNext() }
        guard !isClosed else { return }
        isClosed = true
        await checkpointer?.stop()
        do {
            try await connection.close()
        } catch {
            throw StoreError.database(error)
        }
    }

    public func reserveSessionID() async throws -> StoredSessionID {
        try await exclusive {
            let rows = try await connection.query("UPDATE session_id_counter SET last = last + 1 RETURNING last")
            guard let row = rows.first else { throw StoreError(.database, "The session id counter has no row.") }
            return try row.sessionID("last")
        }
    }

    /// Beyond the protocol's promise, also refuses (with nothing written) a gap after the log's
    /// end, and anything after sessionEnded: either would leave a log that cannot be replayed.
    public func append(_ events: [SequencedEvent], to session: StoredSessionID, opening: SessionOpening?, lease: LeaseEpoch?) async throws {
        guard let first = events.first else { return }
        try BatchRules.checkShape(of: events, in: session)
        try BatchRules.checkOpening(opening, first: first.seq, in: session)
        try BatchRules.checkOpening(opening, lease: lease, in: session)
        let bodies = try events.map { try coding.body(of: $0, in: session) }
        let sync = syncPolicy.syncs(events)
        try await exclusive {
            if sync != syncingCommits {
                // Set between transactions; a synced commit also syncs the WAL frames before it.
                _ = try await connection.query("PRAGMA synchronous = \(sync ? "FULL" : "NORMAL")")
                syncingCommits = sync
            }
            // A cached log end is trusted first; if the batch is refused, it is checked again
            // against the file (another writer may have appended), which names the reason.
            let trusted = knownEnds[session] != nil
            do {
                try await insert(events, bodies: bodies, first: first, to: session, opening: opening, lease: lease)
            } catch where trusted {
                knownEnds[session] = nil
                try await insert(events, bodies: bodies, first: first, to: session, opening: opening, lease: lease)
            }
            if BatchRules.endsSession(events) { knownEnds[session] = nil } else { knownEnds[session] = events[events.count - 1].seq }
        }
    }

    /// Writes a batch: the session's row if it opens the log, the events, then the history
    /// they project. One statement whose log end is known runs alone (SQLite makes a single
    /// statement atomic): one trip to SQLite's thread instead of four. Otherwise one IMMEDIATE
    /// transaction checks the log end first; IMMEDIATE takes the write lock before that read,
    /// so another process cannot slip the same seq in between the check and the insert.
    /// Either way the lease epoch is checked by the write itself (see `insertions`).
    private func insert(
        _ events: [SequencedEvent], bodies: [String], first: SequencedEvent, to session: StoredSessionID, opening: SessionOpening?,
        lease: LeaseEpoch?
    ) async throws {
        // An opening batch is fenced by the lease the row is written with (epoch 1 or none).
        let fence = opening.map(\.initialLease.epoch) ?? lease ?? .unleased
        var statements = Self.insertions(of: events, bodies: bodies, in: session, fencedBy: fence)
            + events.flatMap { HistoryProjection.changes(for: $0).flatMap { SQLiteHistory.statements(for: $0, in: session) } }
        if BatchRules.endsSession(events) {
            // Nothing rebuilds an ended session.
            statements.append(SQLStatement(sql: "DELETE FROM snapshots WHERE session_id = ?1", binds: [SQLiteData(session)]))
        }
        do {
            if opening == nil, let known = knownEnds[session], statements.count == 1 {
                try BatchRules.check(first: first.seq, after: known, in: session)
                let inserted = try await connection.query(statements[0].sql, statements[0].binds)
                // Nothing inserted: the epoch is not the session's (another store took the
                // lease); the caller retries in a transaction, which names the reason.
                if inserted.isEmpty { throw StoreError(.fenced, "Session \(session)'s lease is not \(lease ?? .unleased).") }
                return
            }
            try await transaction(.immediate) {
                if let opening {
                    try await writeOpening(session, opening)
                } else {
                    try await checkWrite(to: session, lease: lease)
                    try BatchRules.check(first: first.seq, after: try await lastSeq(of: session), in: session)
                }
                for statement in statements { _ = try await connection.query(statement.sql, statement.binds) }
            }
        } catch {
            knownEnds[session] = nil
            throw error
        }
    }

    /// Writes the row of a session whose log begins now. Checked first to name the reason;
    /// the unique index `live_session_names` is what holds against another writer.
    private func writeOpening(_ session: StoredSessionID, _ opening: SessionOpening) async throws {
        let existing = try await connection.query("SELECT 1 AS found FROM sessions WHERE id = ?1", [SQLiteData(session)])
        if !existing.isEmpty { throw StoreError.duplicateSeq(1, in: session, last: try await lastSeq(of: session)) }
        let taken = try await connection.query(
            "SELECT 1 AS found FROM sessions WHERE app = ?1 AND name_key = ?2 AND ended_at IS NULL",
            [.text(opening.app), .text(opening.nameKey)])
        if !taken.isEmpty { throw StoreError.liveNameTaken(opening) }
        let lease = opening.initialLease
        _ = try await connection.query(
            """
            INSERT INTO sessions (id, app, name, name_key, created_at, lease_holder, lease_epoch, lease_owner_epoch)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            """,
            [
                SQLiteData(session), .text(opening.app), .text(opening.name), .text(opening.nameKey), SQLiteData(opening.createdAt),
                lease.holder.map { .text($0.rawValue) } ?? .null, .integer(SQLiteInt64(lease.epoch.rawValue)),
                lease.owner.map { .integer(SQLiteInt64($0.epoch.rawValue)) } ?? .null,
            ])
    }

    public func saveSnapshot(_ snapshot: StoredSnapshot, of session: StoredSessionID, lease: LeaseEpoch?) async throws {
        let body = try coding.body(of: snapshot, in: session)
        try await exclusive {
            try await transaction(.immediate) {
                try await storedLease(of: session).checkWrite(claimed: lease, to: session)
                let last = try await loggedEnd(of: session)
                guard snapshot.seq <= last else {
                    throw StoreError(.outOfOrder, "A snapshot of session \(session) at \(snapshot.seq) is ahead of its log, which ends at \(last).")
                }
                // The same seq twice is the same state: the first is kept.
                _ = try await connection.query(
                    "INSERT OR IGNORE INTO snapshots (session_id, seq, body) VALUES (?1, ?2, ?3)",
                    [SQLiteData(session), SQLiteData(snapshot.seq), .text(body)])
            }
        }
    }

    /// Events per INSERT statement: one statement (one trip to SQLite's thread) per batch,
    /// well under SQLite's limit on bound parameters.
    private static let rowsPerInsert = 200

    /// The INSERT statements for a batch's events, `rowsPerInsert` rows each. Each inserts only
    /// while the session's lease epoch is `lease`, and returns the seqs it inserted: a write
    /// outside a transaction (the one-statement path) is fenced by the statement itself.
    private static func insertions(
        of events: [SequencedEvent], bodies: [String], in session: StoredSessionID, fencedBy lease: LeaseEpoch
    ) -> [SQLStatement] {
        stride(from: 0, to: events.count, by: rowsPerInsert).map { chunk in
            let rows = chunk..<min(chunk + rowsPerInsert, events.count)
            let values = rows.map { index in
                let base = (index - chunk) * 4
                return "(?\(base + 1), ?\(base + 2), ?\(base + 3), ?\(base + 4))"
            }
            let fence = rows.count * 4
            let binds = rows.flatMap { index in
                [SQLiteData(session), SQLiteData(events[index].seq), SQLiteData(events[index].at), .text(bodies[index])]
            } + [SQLiteData(session), .integer(SQLiteInt64(lease.rawValue))]
            return SQLStatement(
                sql: """
                    INSERT INTO events (session_id, seq, at, body) SELECT * FROM (VALUES \(values.joined(separator: ", ")))
                    WHERE (SELECT lease_epoch FROM sessions WHERE id = ?\(fence + 1)) = ?\(fence + 2) RETURNING seq
                    """, binds: binds)
        }
    }

    /// The seq the session's log ends at (0 when empty), refusing unknown and ended sessions.
    private func lastSeq(of session: StoredSessionID) async throws -> Int {
        // This store is the file's only writer while open: the end of a log it wrote is known
        // without asking (a stale value could only make the primary key refuse a duplicate).
        if let known = knownEnds[session] { return known }
        let rows = try await connection.query(
            """
            SELECT ended_at, (SELECT max(seq) FROM events WHERE session_id = ?1) AS last
            FROM sessions WHERE id = ?1
            """, [SQLiteData(session)])
        guard let row = rows.first else { throw StoreError.unknownSession(session) }
        if try row.optionalInt64("ended_at") != nil { throw StoreError.ended(session) }
        return try row.optionalInt64("last").map(Int.init) ?? 0
    }

    /// The seq the session's log ends at, ended or not, read from the file.
    private func loggedEnd(of session: StoredSessionID) async throws -> Int {
        let rows = try await connection.query(
            "SELECT (SELECT max(seq) FROM events WHERE session_id = ?1) AS last FROM sessions WHERE id = ?1", [SQLiteData(session)])
        guard let row = rows.first else { throw StoreError.unknownSession(session) }
        return try row.optionalInt64("last").map(Int.init) ?? 0
    }
}

// MARK: - Serial access

extension SQLiteSessionStore {
    enum TransactionKind: String {
        /// Reads: a consistent snapshot across several SELECTs.
        case deferred = "DEFERRED"
        /// Writes: the write lock is taken up front.
        case immediate = "IMMEDIATE"
    }

    /// Runs `body` with the connection to itself, callers admitted first come first served.
    /// Any error leaves as a `StoreError`.
    func exclusive<T>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        defer { admitNext() }
        guard !isClosed else { throw StoreError(.closed, "The session store is closed.") }
        do {
            return try await body()
        } catch {
            throw StoreError.database(error)
        }
    }

    private func acquire() async {
        if isBusy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            isBusy = true
        }
    }

    /// Hands the connection straight to the next waiter, so that no newcomer overtakes it.
    private func admitNext() {
        if waiting.isEmpty {
            isBusy = false
        } else {
            waiting.removeFirst().resume()
        }
    }

    /// Runs `body` in one transaction, rolled back if it throws. Call only inside `exclusive`.
    func transaction<T>(_ kind: TransactionKind, _ body: () async throws -> T) async throws -> T {
        _ = try await connection.query("BEGIN \(kind.rawValue)")
        do {
            let result = try await body()
            _ = try await connection.query("COMMIT")
            return result
        } catch {
            do {
                _ = try await connection.query("ROLLBACK")
            } catch let rollbackError {
                // SQLite may already have rolled back by itself (e.g. after an I/O error).
                logger.warning("ROLLBACK failed", metadata: ["error": "\(rollbackError)", "cause": "\(error)"])
            }
            throw error
        }
    }

    /// The schema version the file is at (tests).
    func schemaVersion() async throws -> Int {
        try await exclusive { try await SQLiteSchema.currentVersion(connection) }
    }

    /// A setting of this connection as SQLite reports it (tests). `name` is ours, never input.
    func pragma(_ name: String) async throws -> String? {
        try await exclusive { try await connection.query("PRAGMA \(name)").first?.column(name)?.string }
    }

    /// Runs raw SQL (tests that need a file in a state the API cannot produce).
    func execute(_ sql: String) async throws {
        try await exclusive { _ = try await connection.query(sql) }
    }
}
