import CaucusCore
import CaucusStore
import Logging
import PostgresNIO
import ServiceLifecycle

/// The shared session store: a PostgreSQL database that several `caucus serve` nodes may
/// use at once. Every call leases a connection from postgres-nio's pool, so calls run
/// concurrently; what must not interleave is serialized by the database (the compare-and-set
/// on `sessions.last_seq`, the unique keys), not by this process.
///
/// The pool is a `Service`: it works only while `run()` runs, which the server does in its
/// `ServiceGroup` (first in the group, so it stops last, after every session's last write).
public actor PostgresSessionStore: SessionStore, Service {
    let client: PostgresClient
    /// Two connections of their own for the leases' changes (renewals, takeovers): a burst of
    /// requests (everyone resuming after a takeover) fills the main pool, and a renewal queued
    /// behind it would miss its lease's deadline and give a healthy session up.
    let leaseClient: PostgresClient
    let location: PostgresStoreLocation
    /// How long any call may wait for the database: for a connection of the pool (which
    /// otherwise waits as long as PostgreSQL refuses them) and for each answer (which a link
    /// that drops packets without closing never brings). A caller's `StoreDeadline` may be
    /// sooner.
    let callDeadline: Duration
    let logger: Logger
    let coding = StoredCoding()
    private var isMigrated = false
    private var isClosed = false
    /// `synchronous_commit` as the last append's transaction ran, as PostgreSQL reported it (tests).
    private(set) var lastCommitSynchronous: String?

    /// A store for the database at `location`. Nothing is connected until `run()` runs; call
    /// `prepare()` then, before anything else.
    public init(
        location: PostgresStoreLocation, callDeadline: Duration = .seconds(10),
        logger: Logger = Logger(label: "caucus.store")
    ) {
        self.location = location
        self.callDeadline = callDeadline
        self.logger = logger
        // Both pools are of a fixed size, opened at start and kept open however long the node
        // idles. With PostgreSQL's slots all taken (another program, a node starting), a pool
        // that may grow tries to open one more under load, fails, and from then on postgres-nio
        // queues every new call until an open succeeds, even with connections idle: the node
        // could reach the database no more, and the sessions of a node that died were never
        // taken over (`ClusterConnectionSlotsTests`, `PostgresGivenUpCallsTests`). A pool still
        // gets there when it loses a connection and cannot open another; then only a keep-alive
        // of an idle connection hands the queued calls on, hence one every `idleCheck`.
        var main = location.clientConfiguration(idleInTransaction: callDeadline, name: "caucus")
        main.options.minimumConnections = Self.connections
        main.options.maximumConnections = Self.connections
        main.options.keepAliveBehavior = .init(frequency: Self.idleCheck)
        self.client = PostgresClient(configuration: main, backgroundLogger: logger)
        // A lease's statement that waits longer than half the call's bound (behind the row lock
        // of a node frozen mid-transaction, say) is ended by PostgreSQL, not left holding one of
        // the two connections the renewals need.
        var leases = location.clientConfiguration(idleInTransaction: callDeadline, statementTimeout: callDeadline / 2, name: "caucus-leases")
        leases.options.minimumConnections = Self.leaseConnections
        leases.options.maximumConnections = Self.leaseConnections
        leases.options.keepAliveBehavior = .init(frequency: Self.idleCheck)
        self.leaseClient = PostgresClient(configuration: leases, backgroundLogger: logger)
    }

    /// Runs the connection pools until graceful shutdown (or cancellation).
    public nonisolated func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.client.run() }
            group.addTask { await self.leaseClient.run() }
        }
    }

    /// How long `prepare` waits for a first connection when the server may yet come up (it
    /// refuses connections, or says it is starting): the pool retries a server it cannot
    /// reach, so without a bound a server that never comes would leave `caucus serve`
    /// waiting silently. A failure no retry can mend ends `prepare` at once.
    static let connectionDeadline = Duration.seconds(30)

    /// The main pool's connections: how many calls run at once (others wait for one).
    static let connections = 8

    /// The leases' own connections (renewals, takeovers).
    static let leaseConnections = 2

    /// How long a connection idles before its keep-alive (`SELECT 1`).
    static let idleCheck = Duration.seconds(1)

    /// Migrates the schema (once). Waits for `run()` to have started the pool.
    public func prepare() async throws {
        guard !isMigrated else { return }
        let client = client
        let logger = logger
        let location = location
        let deadline = ContinuousClock.now + Self.connectionDeadline
        try await PostgresFirstConnection.establish(location, deadline: deadline, logger: logger)
        do {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await client.withConnection { connection in try await PostgresSchema.migrate(connection, logger: logger) }
                    return true
                }
                group.addTask {
                    try await Task.sleep(until: deadline)
                    return false
                }
                let migrated = try await group.next() ?? false
                group.cancelAll()
                if !migrated {
                    throw StoreError(.cannotOpen, "No connection to PostgreSQL at \(location.description) within \(Self.connectionDeadline).")
                }
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.cannotOpen, "Cannot prepare the PostgreSQL store at \(location.description): \(Self.describe(error))")
        }
        isMigrated = true
    }

    /// Refuses every later call. The pool itself stops with `run()`.
    public func close() async throws {
        isClosed = true
    }

    public func reserveSessionID() async throws -> StoredSessionID {
        try await calling { [self] in
            try await withConnection { connection in
                let rows = try await connection.query("SELECT nextval('session_ids')", logger: logger)
                for try await id in rows.decode(Int64.self) { return StoredSessionID(rawValue: id) }
                throw StoreError(.database, "nextval gave no id.")
            }
        }
    }

    /// Beyond the protocol's promise, also refuses (with nothing written) a gap after the log's
    /// end, and anything after sessionEnded: either would leave a log that cannot be replayed.
    public func append(_ events: [SequencedEvent], to session: StoredSessionID, opening: SessionOpening?, lease: LeaseEpoch?) async throws {
        guard let first = events.first, let last = events.last else { return }
        try BatchRules.checkShape(of: events, in: session)
        try BatchRules.checkOpening(opening, first: first.seq, in: session)
        try BatchRules.checkOpening(opening, lease: lease, in: session)
        let bodies = try events.map { try coding.body(of: $0, in: session) }
        let history = PostgresHistory.queries(for: events.flatMap(HistoryProjection.changes(for:)), in: session)
        try await calling { [self] in
            try await transaction { connection in
                // Every commit waits until the database's WAL is on its disk, whatever the
                // database's own default (`SET LOCAL`, for this transaction only): its events
                // reach clients once this returns, and PostgreSQL is a process of its own that
                // may crash while Caucus runs on. A commit lost there would leave clients
                // holding events the log no longer has (issue 42: `ClusterDatabaseCrashTests`).
                // The database answers with the setting now in force.
                let setting = try await connection.query("SELECT set_config('synchronous_commit', 'on', true)", logger: logger)
                for try await value in setting.decode(String.self) { await noteCommitSetting(value) }
                if let opening {
                    try await writeOpening(session, opening, through: last.seq, on: connection)
                } else {
                    try await advance(session, from: first.seq, to: last.seq, lease: lease ?? .unleased, on: connection)
                }
                try await connection.query(
                    """
                    INSERT INTO events (session_id, seq, at, body)
                    SELECT \(session.rawValue), * FROM unnest(\(events.map { Int64($0.seq) })::bigint[], \(events.map { $0.at.milliseconds })::bigint[], \(bodies)::text[])
                    """, logger: logger)
                for query in history { try await connection.query(query, logger: logger) }
                if BatchRules.endsSession(events) {
                    // Nothing rebuilds an ended session.
                    try await connection.query("DELETE FROM snapshots WHERE session_id = \(session.rawValue)", logger: logger)
                }
            }
        }
    }

    private func noteCommitSetting(_ value: String) {
        lastCommitSynchronous = value
    }

    /// Writes the row of a session whose log begins now. The unique index on live names is
    /// what refuses a second live session of one name, whichever node writes it.
    private nonisolated func writeOpening(_ session: StoredSessionID, _ opening: SessionOpening, through last: Int, on connection: PostgresConnection) async throws {
        let lease = opening.initialLease
        do {
            try await connection.query(
                """
                INSERT INTO sessions (id, app, name, name_key, created_at, last_seq, lease_holder, lease_epoch, lease_owner_epoch)
                VALUES (\(session.rawValue), \(opening.app), \(opening.name), \(opening.nameKey), \(opening.createdAt.milliseconds), \(Int64(last)),
                    \(lease.holder?.rawValue), \(lease.epoch.rawValue), \(lease.owner?.epoch.rawValue))
                """, logger: logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            if error.serverInfo?[.constraintName] == "live_session_names" { throw StoreError.liveNameTaken(opening) }
            throw StoreError.duplicateSeq(1, in: session, last: last)
        }
    }

    /// Moves the log's end from `first - 1` to `last` if it is there and `lease` is the
    /// session's current epoch, else names the reason. The row stays locked until the
    /// transaction ends: appenders of one session, and a node taking its lease, queue here; a
    /// takeover that commits first makes this `WHERE` fail when PostgreSQL re-checks it.
    private nonisolated func advance(_ session: StoredSessionID, from first: Int, to last: Int, lease: LeaseEpoch, on connection: PostgresConnection) async throws {
        let moved = try await connection.query(
            """
            UPDATE sessions SET last_seq = \(Int64(last))
            WHERE id = \(session.rawValue) AND last_seq = \(Int64(first - 1)) AND ended_at IS NULL
              AND lease_epoch = \(lease.rawValue)
            RETURNING id
            """, logger: logger)
        for try await _ in moved { return }
        guard let row = try await sessionRow(session, lock: .none, on: connection) else { throw StoreError.unknownSession(session) }
        if row.isEnded { throw StoreError.ended(session) }
        try row.lease.checkWrite(claimed: lease == .unleased ? nil : lease, to: session)
        try BatchRules.check(first: first, after: row.lastSeq, in: session)
        throw StoreError(.database, "Session \(session)'s log end did not move, and nothing says why.")
    }

    public func saveSnapshot(_ snapshot: StoredSnapshot, of session: StoredSessionID, lease: LeaseEpoch?) async throws {
        let body = try coding.body(of: snapshot, in: session)
        try await calling { [self] in
            try await transaction { connection in
                // FOR SHARE: a takeover (which updates the row) waits for this save, or this
                // save reads the takeover's epoch and is fenced.
                guard let row = try await sessionRow(session, lock: .share, on: connection) else {
                    throw StoreError.unknownSession(session)
                }
                try row.lease.checkWrite(claimed: lease, to: session)
                let end = row.lastSeq
                guard snapshot.seq <= end else {
                    throw StoreError(.outOfOrder, "A snapshot of session \(session) at \(snapshot.seq) is ahead of its log, which ends at \(end).")
                }
                // The same seq twice is the same state: the first is kept.
                try await connection.query(
                    """
                    INSERT INTO snapshots (session_id, seq, body) VALUES (\(session.rawValue), \(Int64(snapshot.seq)), \(body))
                    ON CONFLICT (session_id, seq) DO NOTHING
                    """, logger: logger)
            }
        }
    }
}

// MARK: - Connections and errors

extension PostgresSessionStore {
    /// Runs `body` unless the store is closed; any error leaves as a `StoreError`. A call that
    /// has not finished by its deadline (`callDeadline`, or the caller's `StoreDeadline` if
    /// sooner) throws `database`, "no answer", then: a wait for a connection is given up, and a
    /// query already sent goes on until its connection has been held for `callDeadline`, when
    /// it is closed (`StoreCall`, `withConnection`).
    /// `bounded: false` leaves out `callDeadline`, for a call that nobody waits on but the
    /// node's start.
    func calling<T: Sendable>(bounded: Bool = true, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        guard !isClosed else { throw StoreError(.closed, "The session store is closed.") }
        let bound = bounded ? callDeadline : .seconds(86_400)
        let ownDeadline = ContinuousClock.now + bound
        let deadline = StoreDeadline.current.map { min($0, ownDeadline) } ?? ownDeadline
        do {
            return try await StoreCall.run(callerDeadline: deadline, bound: bound, body)
        } catch let error as StoreError {
            throw error
        } catch is StoreCallGivenUp {
            throw StoreError(.database, "PostgreSQL at \(location.description) did not answer in time.")
        } catch {
            if ContinuousClock.now >= deadline {
                throw StoreError(.database, "PostgreSQL at \(location.description) did not answer in time (\(Self.describe(error))).")
            }
            throw StoreError(.database, Self.describe(error))
        }
    }

    /// Runs `body` on a connection of the pool. Cancelling the call (at its own deadline)
    /// closes the connection: postgres-nio does not give up a query by itself, and a link that
    /// drops packets without closing would leave it waiting for an answer that never comes. The
    /// pool then replaces the connection; PostgreSQL rolls back what it began
    /// (`idle_in_transaction_session_timeout` ends its side of a transaction whose client went
    /// silent, releasing its row locks). A connection handed over after the call's caller left
    /// goes back to the pool unused.
    /// `pool`: the main pool unless given (the leases' own).
    nonisolated func withConnection<T: Sendable>(on pool: PostgresClient? = nil, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await (pool ?? client).withConnection { connection in
            let call = StoreCall.current
            guard call?.takesConnection() ?? true else { throw CancellationError() }
            defer { call?.returnsConnection() }
            return try await withTaskCancellationHandler {
                try await body(connection)
            } onCancel: {
                connection.close().whenComplete { _ in }
            }
        }
    }

    /// Runs `body` in one transaction on one leased connection, rolled back if it throws.
    nonisolated func transaction<T: Sendable>(
        _ begin: PostgresQuery = "BEGIN", on pool: PostgresClient? = nil, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withConnection(on: pool) { connection in
            try await connection.query(begin, logger: logger)
            do {
                let result = try await body(connection)
                try await connection.query("COMMIT", logger: logger)
                return result
            } catch {
                do {
                    try await connection.query("ROLLBACK", logger: logger)
                } catch let rollbackError {
                    logger.warning("ROLLBACK failed", metadata: ["error": "\(rollbackError)", "cause": "\(error)"])
                }
                throw error
            }
        }
    }

    /// The schema version the database is at (tests).
    func schemaVersion() async throws -> Int {
        try await calling { try await self.withConnection { try await PostgresSchema.currentVersion($0, logger: self.logger) } }
    }

    /// Runs raw SQL (tests that need a database in a state the API cannot produce).
    func execute(_ sql: String) async throws {
        try await calling { try await self.withConnection { _ = try await $0.query(PostgresQuery(unsafeSQL: sql), logger: self.logger) } }
    }

    /// What went wrong, with the server's own message when there is one (PSQLError hides it
    /// from `description` so that queries and values do not end up in logs by accident).
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            return "PostgreSQL: \(message) (SQLSTATE \(error.serverInfo?[.sqlState] ?? "?"))"
        }
        return "PostgreSQL: \(error.code)\(error.underlying.map { ": \($0)" } ?? "")"
    }
}
