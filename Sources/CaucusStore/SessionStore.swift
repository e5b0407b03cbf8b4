import CaucusCore

/// Append-only event log per session plus session history and the latest snapshot of each
/// session's state. Implementations must be safe to call concurrently.
///
/// The log is the truth: a session is rebuilt after a restart from its latest snapshot and the
/// events after it. History is a projection of the same events (`HistoryProjection`), kept in
/// the same transaction so the two never disagree.
///
/// The same conformance suite (Tests/CaucusStoreTests/Conformance) runs against every
/// implementation: SQLite (`CaucusStoreSQLite`) and PostgreSQL (`CaucusStorePostgres`).
public protocol SessionStore: ConsoleClassStore {
    /// A new session's id, never handed out before. Nothing is written: the session is
    /// recorded by its first append (`opening`), so a session whose first join was refused
    /// leaves no trace.
    func reserveSessionID() async throws -> StoredSessionID

    /// Appends events (already numbered, contiguous, increasing) to a session's log.
    ///
    /// The batch that begins the log (seq 1) carries `opening`: the session's row is written
    /// in the same transaction, and refused with `liveNameTaken` if another live session of the
    /// app has the same name key (`SessionName.key`) — the database, not only the server's
    /// memory, keeps one live session per name. Later batches pass nil.
    ///
    /// Durability follows the store's `SyncPolicy` (see there for what each store does).
    /// Updates history from the events in the same transaction (see `HistoryProjection`).
    /// Appending a seq that already exists for that session must throw (never silently
    /// duplicate or overwrite); so must a gap, or anything after sessionEnded.
    ///
    /// `lease` is the epoch the caller believes it holds (see `acquireLease`). It is checked in
    /// the same transaction as the write, which is refused with `fenced` (nothing written)
    /// unless it is the session's current epoch; nil is accepted only while no lease of the
    /// session was ever taken (`SessionLease.checkWrite`). It is an optional parameter rather
    /// than a separate fenced API because a lease is one more condition on the same write:
    /// nil keeps the single-node behaviour of a store without leases, so the server (one node,
    /// no leases yet) calls it as before, and a node that does lease passes its epoch on every
    /// write. An opening batch takes nil: its lease, if any, comes with it (`SessionOpening`).
    func append(_ events: [SequencedEvent], to session: StoredSessionID, opening: SessionOpening?, lease: LeaseEpoch?) async throws

    /// Keeps `snapshot` of a session. Refused (`outOfOrder`) if it includes an event the log
    /// does not hold yet: a snapshot never runs ahead of the log. A session's snapshots are
    /// kept while it is live (a rebuild may want an older one, see `liveSessions`) and dropped
    /// with the batch that ends it.
    /// `lease` is fenced as for `append`, in the same transaction as the save.
    func saveSnapshot(_ snapshot: StoredSnapshot, of session: StoredSessionID, lease: LeaseEpoch?) async throws

    /// Starts a run of `node`: writes its node lease, live until `until`, at the epoch after
    /// the previous run's (`NodeLease.started`). The sessions of earlier runs are no longer
    /// live; they are taken over like those of a node that stopped.
    func startNodeLease(for node: NodeID, until: Instant) async throws -> NodeLease

    /// Extends `owner`'s node lease until `until` — even after it expired, as long as no later
    /// run of the node started (refused with `fenced` then) — and returns the live sessions it
    /// owns, each with its epoch: the ones the node serves that are missing were taken by
    /// another node meanwhile. One transaction, whatever the number of sessions.
    func renewNodeLease(_ owner: NodeIncarnation, until: Instant) async throws -> [StoredSessionID: LeaseEpoch]

    /// Ends `owner`'s node lease at `now` (a stopping node whose sessions are saved), so that
    /// other nodes may take its sessions at once. A later run's lease is left alone.
    func releaseNodeLease(_ owner: NodeIncarnation, at now: Instant) async throws

    /// `node`'s lease as stored; nil if it never ran.
    func nodeLease(of node: NodeID) async throws -> NodeLease?

    /// Makes `owner` the holder of a session's lease, returning the epoch its writes carry.
    /// Succeeds when nobody holds it, or its owner's node lease is not live at the owner's
    /// epoch at `now` (taking the next epoch), or `owner` holds it already (keeping the
    /// epoch); refused with `leaseHeld` while another run's lease is live. Only a session
    /// whose log has begun has a lease (`unknownSession` otherwise); an ended one refuses
    /// (`sessionEnded`). `now` is the caller's clock: the store reads none.
    func acquireLease(of session: StoredSessionID, for owner: NodeIncarnation, now: Instant) async throws -> LeaseEpoch

    /// The session's lease as stored (`SessionLease.never` if never taken), with its owner's
    /// node lease: for a node deciding whether to take a session over, and for tests.
    func lease(of session: StoredSessionID) async throws -> SessionLeaseState

    /// Sessions whose log does not end with sessionEnded, each with a snapshot and the events
    /// after it: what a restart rebuilds. The snapshot is the latest that leaves at least
    /// `replayDepth` events after it (none if no snapshot does), so that a rebuilt session can
    /// still replay that many events to clients resuming after the restart, as it could
    /// before; 0 takes the latest.
    func liveSessions(replayDepth: Int) async throws -> [StoredSession]

    /// A session's events with seq > `seq`, in order (for replaying to a reconnecting client).
    func events(of session: StoredSessionID, after seq: Int) async throws -> [SequencedEvent]

    /// Session history for an app, newest first, at most `limit` sessions.
    func history(app: String, limit: Int) async throws -> [SessionHistory]

    func close() async throws
}

extension SessionStore {
    /// Live sessions from their latest snapshots.
    public func liveSessions() async throws -> [StoredSession] {
        try await liveSessions(replayDepth: 0)
    }

    /// Appends without a lease (one node).
    public func append(_ events: [SequencedEvent], to session: StoredSessionID, opening: SessionOpening?) async throws {
        try await append(events, to: session, opening: opening, lease: nil)
    }

    /// Appends to a session whose log has begun, without a lease (one node).
    public func append(_ events: [SequencedEvent], to session: StoredSessionID) async throws {
        try await append(events, to: session, opening: nil, lease: nil)
    }

    /// Saves a snapshot without a lease (one node).
    public func saveSnapshot(_ snapshot: StoredSnapshot, of session: StoredSessionID) async throws {
        try await saveSnapshot(snapshot, of: session, lease: nil)
    }
}
