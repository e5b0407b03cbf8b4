import CaucusCore

/// Append-only event log per session plus session history. Implementations must be safe to
/// call concurrently.
///
/// The log is the truth: a session is rebuilt after a restart by replaying it. History is a
/// projection of the same events, kept in the same transaction so the two never disagree.
public protocol SessionStore: Sendable {
    /// Records a new live session and returns its id.
    func createSession(app: String, name: String, at: Instant) async throws -> StoredSessionID

    /// Deletes a session that has no event: one whose first join was refused. A session with
    /// events is kept, so this can never lose a log. Such a row would otherwise never end and
    /// would show in the history as a session no one attended.
    func discardSession(_ session: StoredSessionID) async throws

    /// Appends events (already numbered, contiguous, increasing) to a session's log, durably:
    /// when this returns they are on disk (a chat message is acknowledged only after this).
    /// Updates history from the events in the same transaction: userJoined → a user row;
    /// userLeft → its leftAt/reason (time = the SequencedEvent's `at`); userRenamed → its name;
    /// sessionEnded → the session's endedAt/endReason and every user still in it gets leftAt.
    /// Appending a seq that already exists for that session must throw (never silently
    /// duplicate or overwrite).
    func append(_ events: [SequencedEvent], to session: StoredSessionID) async throws

    /// Sessions whose log does not end with sessionEnded, each with its full log: what a
    /// restart rebuilds.
    func liveSessions() async throws -> [StoredSession]

    /// A session's events with seq > `seq`, in order (for replaying to a reconnecting client).
    func events(of session: StoredSessionID, after seq: Int) async throws -> [SequencedEvent]

    /// Session history for an app, newest first, at most `limit` sessions.
    func history(app: String, limit: Int) async throws -> [SessionHistory]

    func close() async throws
}
