import CaucusCore
import CaucusStore
import SQLiteNIO

extension SQLiteSessionStore {
    public func liveSessions(replayDepth: Int) async throws -> [StoredSession] {
        // Each live session with the seq of the snapshot a rebuild starts from.
        let chosen = """
            WITH chosen AS (
                SELECT s.id, s.app, s.name, s.created_at, (
                    SELECT max(n.seq) FROM snapshots n
                    WHERE n.session_id = s.id AND n.seq <= (SELECT max(seq) FROM events WHERE session_id = s.id) - ?1
                ) AS snapshot_seq
                FROM sessions s WHERE s.ended_at IS NULL
            )
            """
        return try await exclusive {
            try await transaction(.deferred) {
                let sessions = try await connection.query(
                    """
                    \(chosen)
                    SELECT c.id, c.app, c.name, c.created_at, c.snapshot_seq, n.body AS snapshot
                    FROM chosen c LEFT JOIN snapshots n ON n.session_id = c.id AND n.seq = c.snapshot_seq
                    ORDER BY c.id
                    """, [SQLiteData(max(0, replayDepth))])
                // Only the events after each session's snapshot: the snapshot stands for the rest.
                let eventRows = try await connection.query(
                    """
                    \(chosen)
                    SELECT e.session_id, e.seq, e.at, e.body
                    FROM events e JOIN chosen c ON c.id = e.session_id
                    WHERE e.seq > coalesce(c.snapshot_seq, 0)
                    ORDER BY e.session_id, e.seq
                    """, [SQLiteData(max(0, replayDepth))])
                return try storedSessions(sessions, events: eventRows)
            }
        }
    }

    /// The sessions read by `liveSessions`, each with its snapshot and the events after it.
    /// Synchronous, outside the query's closures and never inlined into them: Swift 6.3.1's
    /// optimizer crashed (signal 11 splitting the async coroutine) on these typed-throws calls
    /// inlined there, in release builds.
    @inline(never)
    private func storedSessions(_ sessions: [SQLiteRow], events eventRows: [SQLiteRow]) throws -> [StoredSession] {
        var logs: [StoredSessionID: [SequencedEvent]] = [:]
        for row in eventRows {
            let session = try row.sessionID("session_id")
            logs[session, default: []].append(try decodeEvent(row, of: session))
        }
        var stored: [StoredSession] = []
        for row in sessions {
            let id = try row.sessionID("id")
            var snapshot: StoredSnapshot?
            if let seq = try row.optionalInt64("snapshot_seq") {
                snapshot = try coding.snapshot(seq: Int(seq), body: try row.text("snapshot"), in: id)
            }
            stored.append(StoredSession(
                id: id, app: try row.text("app"), name: try row.text("name"),
                createdAt: try row.instant("created_at"), snapshot: snapshot, events: logs[id] ?? []))
        }
        return stored
    }

    public func events(of session: StoredSessionID, after seq: Int) async throws -> [SequencedEvent] {
        try await exclusive {
            try await transaction(.deferred) {
                let known = try await connection.query("SELECT 1 AS known FROM sessions WHERE id = ?1", [SQLiteData(session)])
                guard !known.isEmpty else { throw StoreError.unknownSession(session) }
                let rows = try await connection.query(
                    "SELECT seq, at, body FROM events WHERE session_id = ?1 AND seq > ?2 ORDER BY seq",
                    [SQLiteData(session), SQLiteData(seq)])
                return try rows.map { try decodeEvent($0, of: session) }
            }
        }
    }

    public func history(app: String, limit: Int) async throws -> [SessionHistory] {
        guard limit > 0 else { return [] }
        return try await exclusive {
            try await transaction(.deferred) {
                let binds: [SQLiteData] = [.text(app), SQLiteData(limit)]
                let newest = "SELECT id FROM sessions WHERE app = ?1 ORDER BY created_at DESC, id DESC LIMIT ?2"
                let sessions = try await connection.query(
                    """
                    SELECT id, app, name, created_at, ended_at, end_reason FROM sessions
                    WHERE id IN (\(newest)) ORDER BY created_at DESC, id DESC
                    """, binds)
                // User ids are handed out in join order, so they order a session's users too.
                let userRows = try await connection.query(
                    """
                    SELECT session_id, user_id, name, joined_at, left_at, leave_reason FROM session_users
                    WHERE session_id IN (\(newest)) ORDER BY session_id, user_id
                    """, binds)
                var users: [StoredSessionID: [UserHistory]] = [:]
                for row in userRows {
                    users[try row.sessionID("session_id"), default: []].append(
                        UserHistory(
                            userID: UserID(try row.int("user_id")), name: try row.text("name"),
                            joinedAt: try row.instant("joined_at"), leftAt: try row.optionalInstant("left_at"),
                            leaveReason: try row.optionalText("leave_reason")))
                }
                return try sessions.map { row in
                    let id = try row.sessionID("id")
                    return SessionHistory(
                        id: id, app: try row.text("app"), name: try row.text("name"),
                        startedAt: try row.instant("created_at"), endedAt: try row.optionalInstant("ended_at"),
                        endReason: try row.optionalText("end_reason"), users: users[id] ?? [])
                }
            }
        }
    }

    /// Never inlined into the async closures that read rows, for the same crash as above.
    @inline(never)
    private func decodeEvent(_ row: SQLiteRow, of session: StoredSessionID) throws -> SequencedEvent {
        try coding.event(seq: try row.int("seq"), at: try row.instant("at"), body: try row.text("body"), in: session)
    }
}
