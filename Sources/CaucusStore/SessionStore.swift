import CaucusCore

/// Append-only event log per session plus session history. Implementations must be safe to
/// call concurrently.
///
/// The log is the truth: a session is rebuilt after a restart by replaying it. History is a
/// projection of the same events, kept in the same transaction so the two never disagree.
public protocol SessionStore: Sendable {
    /// Records a new live session and returns its id.
    func createSession(app: String, name: String, at: Instant) async throws -> StoredSessionID

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
