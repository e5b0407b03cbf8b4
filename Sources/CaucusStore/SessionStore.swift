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
public protocol SessionStore: Sendable {
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
    func append(_ events: [SequencedEvent], to session: StoredSessionID, opening: SessionOpening?) async throws

    /// Keeps `snapshot` of a session. Refused (`outOfOrder`) if it includes an event the log
    /// does not hold yet: a snapshot never runs ahead of the log. A session's snapshots are
    /// kept while it is live (a rebuild may want an older one, see `liveSessions`) and dropped
    /// with the batch that ends it.
    func saveSnapshot(_ snapshot: StoredSnapshot, of session: StoredSessionID) async throws

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

    /// Appends to a session whose log has begun.
    public func append(_ events: [SequencedEvent], to session: StoredSessionID) async throws {
        try await append(events, to: session, opening: nil)
    }
}
