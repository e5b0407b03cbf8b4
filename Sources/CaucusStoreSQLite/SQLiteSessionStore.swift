import CaucusCore
import CaucusJSON
import CaucusProtocol
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
    let encoder = StreamingJSONEncoder.caucus
    let decoder = JSONDecoder()
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

    public func createSession(app: String, name: String, at: Instant) async throws -> StoredSessionID {
        try await exclusive {
            let rows = try await connection.query(
                "INSERT INTO sessions (app, name, created_at) VALUES (?1, ?2, ?3) RETURNING id",
                [.text(app), .text(name), SQLiteData(at)])
            guard let row = rows.first else { throw StoreError(.database, "INSERT … RETURNING gave no id.") }
            return try row.sessionID("id")
        }
    }

    public func discardSession(_ session: StoredSessionID) async throws {
        try await exclusive {
            _ = try await connection.query(
                "DELETE FROM sessions WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM events WHERE session_id = ?1)", [SQLiteData(session)])
        }
    }

    /// Beyond the protocol's promise, also refuses (with nothing written) a gap after the log's
    /// end, and anything after sessionEnded: either would leave a log that cannot be replayed.
    public func append(_ events: [SequencedEvent], to session: StoredSessionID) async throws {
        guard let first = events.first else { return }
        try Self.checkShape(of: events, in: session)
        let bodies = try events.map { sequenced in
            do {
                // Same event, same bytes (members in the order the event writes them).
                return String(decoding: try encoder.encode(sequenced.event), as: UTF8.self)
            } catch {
                throw StoreError(.unencodableEvent, "Event \(sequenced.seq) for session \(session) does not encode: \(error)")
            }
        }
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
                try await insert(events, bodies: bodies, first: first, to: session)
            } catch where trusted {
                knownEnds[session] = nil
                try await insert(events, bodies: bodies, first: first, to: session)
            }
            let last = events[events.count - 1]
            if case .sessionEnded = last.event { knownEnds[session] = nil } else { knownEnds[session] = last.seq }
        }
    }

    /// Writes a batch: the events, then the history they project. One statement whose log
    /// end is known runs alone (SQLite makes a single statement atomic): one trip to SQLite's
    /// thread instead of four. Otherwise one IMMEDIATE transaction checks the log end first;
    /// IMMEDIATE takes the write lock before that read, so another process cannot slip the
    /// same seq in between the check and the insert.
    private func insert(_ events: [SequencedEvent], bodies: [String], first: SequencedEvent, to session: StoredSessionID) async throws {
        let statements = Self.insertions(of: events, bodies: bodies, in: session)
            + events.flatMap { HistoryProjection.statements(for: $0, in: session) }
        do {
            if let known = knownEnds[session], statements.count == 1 {
                try Self.check(first: first.seq, after: known, in: session)
                _ = try await connection.query(statements[0].sql, statements[0].binds)
                return
            }
            try await transaction(.immediate) {
                try Self.check(first: first.seq, after: try await lastSeq(of: session), in: session)
                for statement in statements { _ = try await connection.query(statement.sql, statement.binds) }
            }
        } catch {
            knownEnds[session] = nil
            throw error
        }
    }

    private static func check(first: Int, after last: Int, in session: StoredSessionID) throws {
        if first <= last { throw StoreError.duplicateSeq(first, in: session, last: last) }
        if first != last + 1 { throw StoreError.gap(expected: last + 1, got: first, in: session) }
    }

    /// The INSERT statements for a batch's events, `rowsPerInsert` rows each.
    private static func insertions(of events: [SequencedEvent], bodies: [String], in session: StoredSessionID) -> [SQLStatement] {
        stride(from: 0, to: events.count, by: rowsPerInsert).map { chunk in
            let rows = chunk..<min(chunk + rowsPerInsert, events.count)
            let values = rows.map { index in
                let base = (index - chunk) * 4
                return "(?\(base + 1), ?\(base + 2), ?\(base + 3), ?\(base + 4))"
            }
            let binds = rows.flatMap { index in
                [SQLiteData(session), SQLiteData(events[index].seq), SQLiteData(events[index].at), .text(bodies[index])]
            }
            return SQLStatement(sql: "INSERT INTO events (session_id, seq, at, body) VALUES \(values.joined(separator: ", "))", binds: binds)
        }
    }

    /// Events per INSERT statement: one statement (one trip to SQLite's thread) per batch,
    /// well under SQLite's limit on bound parameters.
    private static let rowsPerInsert = 200

    /// Refuses a batch that is not contiguous and increasing, or goes on after sessionEnded:
    /// either would leave a log that no longer replays into the session that wrote it.
    private static func checkShape(of events: [SequencedEvent], in session: StoredSessionID) throws {
        for (previous, next) in zip(events, events.dropFirst()) where next.seq != previous.seq + 1 {
            throw StoreError(
                .outOfOrder, "Events for session \(session) must be numbered contiguously: \(previous.seq) then \(next.seq).")
        }
        for sequenced in events.dropLast() {
            if case .sessionEnded = sequenced.event {
                throw StoreError(.outOfOrder, "Event \(sequenced.seq) ends session \(session) but more events follow it.")
            }
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
