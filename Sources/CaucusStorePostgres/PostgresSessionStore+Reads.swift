import CaucusCore
import CaucusStore
import PostgresNIO

extension PostgresSessionStore {
    public func liveSessions(replayDepth: Int) async throws -> [StoredSession] {
        try await liveSessions(replayDepth: replayDepth, only: nil)
    }

    /// Every live session, or only `only` (a node taking one session over).
    func liveSessions(replayDepth: Int, only: StoredSessionID?) async throws -> [StoredSession] {
        let depth = Int64(max(0, replayDepth))
        let everyone = only == nil
        let id = only?.rawValue ?? 0
        // Reading every live session (a single node starting) may take long with many of
        // them, and nobody waits on it but the start itself: only a caller's deadline bounds it.
        return try await calling(bounded: !everyone) { [self] in
            // One snapshot of the database for both reads: no session half-appended between them.
            try await transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") { connection in
                let sessionRows = try await connection.query(
                    """
                    SELECT s.id, s.app, s.name, s.created_at, n.seq, n.body
                    FROM sessions s LEFT JOIN LATERAL (
                        SELECT seq, body FROM snapshots
                        WHERE session_id = s.id AND seq <= s.last_seq - \(depth) ORDER BY seq DESC LIMIT 1
                    ) n ON true
                    WHERE s.ended_at IS NULL AND (\(everyone) OR s.id = \(id)) ORDER BY s.id
                    """, logger: logger)
                var sessions: [(id: StoredSessionID, app: String, name: String, createdAt: Instant, snapshot: StoredSnapshot?)] = []
                for try await (id, app, name, createdAt, seq, body) in sessionRows.decode((Int64, String, String, Int64, Int64?, String?).self) {
                    let session = StoredSessionID(rawValue: id)
                    var snapshot: StoredSnapshot?
                    if let seq, let body { snapshot = try coding.snapshot(seq: Int(seq), body: body, in: session) }
                    sessions.append((session, app, name, Instant(milliseconds: createdAt), snapshot))
                }
                // Only the events after each session's snapshot: the snapshot stands for the rest.
                let eventRows = try await connection.query(
                    """
                    SELECT e.session_id, e.seq, e.at, e.body
                    FROM sessions s LEFT JOIN LATERAL (
                        SELECT max(seq) AS seq FROM snapshots WHERE session_id = s.id AND seq <= s.last_seq - \(depth)
                    ) n ON true
                    JOIN events e ON e.session_id = s.id AND e.seq > coalesce(n.seq, 0)
                    WHERE s.ended_at IS NULL AND (\(everyone) OR s.id = \(id))
                    ORDER BY e.session_id, e.seq
                    """, logger: logger)
                var logs: [StoredSessionID: [SequencedEvent]] = [:]
                for try await (id, seq, at, body) in eventRows.decode((Int64, Int64, Int64, String).self) {
                    let session = StoredSessionID(rawValue: id)
                    logs[session, default: []].append(
                        try coding.event(seq: Int(seq), at: Instant(milliseconds: at), body: body, in: session))
                }
                return sessions.map {
                    StoredSession(id: $0.id, app: $0.app, name: $0.name, createdAt: $0.createdAt, snapshot: $0.snapshot, events: logs[$0.id] ?? [])
                }
            }
        }
    }

    public func events(of session: StoredSessionID, after seq: Int) async throws -> [SequencedEvent] {
        try await calling { [self] in
            try await transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") { connection in
                let known = try await connection.query("SELECT 1 FROM sessions WHERE id = \(session.rawValue)", logger: logger)
                var found = false
                for try await _ in known { found = true }
                guard found else { throw StoreError.unknownSession(session) }
                let rows = try await connection.query(
                    "SELECT seq, at, body FROM events WHERE session_id = \(session.rawValue) AND seq > \(Int64(seq)) ORDER BY seq",
                    logger: logger)
                var events: [SequencedEvent] = []
                for try await (seq, at, body) in rows.decode((Int64, Int64, String).self) {
                    events.append(try coding.event(seq: Int(seq), at: Instant(milliseconds: at), body: body, in: session))
                }
                return events
            }
        }
    }

    public func history(app: String, limit: Int) async throws -> [SessionHistory] {
        guard limit > 0 else { return [] }
        return try await calling { [self] in
            try await transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") { connection in
                let sessionRows = try await connection.query(
                    """
                    SELECT id, app, name, created_at, ended_at, end_reason FROM sessions
                    WHERE app = \(app) ORDER BY created_at DESC, id DESC LIMIT \(limit)
                    """, logger: logger)
                var sessions: [(StoredSessionID, String, String, Instant, Instant?, String?)] = []
                for try await (id, app, name, created, ended, reason) in sessionRows.decode((Int64, String, String, Int64, Int64?, String?).self) {
                    sessions.append((StoredSessionID(rawValue: id), app, name, Instant(milliseconds: created), ended.map(Instant.init(milliseconds:)), reason))
                }
                // User ids are handed out in join order, so they order a session's users too.
                let userRows = try await connection.query(
                    """
                    SELECT session_id, user_id, name, joined_at, left_at, leave_reason FROM session_users
                    WHERE session_id = ANY(\(sessions.map { $0.0.rawValue })::bigint[]) ORDER BY session_id, user_id
                    """, logger: logger)
                var users: [StoredSessionID: [UserHistory]] = [:]
                for try await (session, user, name, joined, left, reason) in userRows.decode((Int64, Int64, String, Int64, Int64?, String?).self) {
                    users[StoredSessionID(rawValue: session), default: []].append(
                        UserHistory(
                            userID: UserID(Int(user)), name: name, joinedAt: Instant(milliseconds: joined),
                            leftAt: left.map(Instant.init(milliseconds:)), leaveReason: reason))
                }
                return sessions.map { id, app, name, started, ended, reason in
                    SessionHistory(id: id, app: app, name: name, startedAt: started, endedAt: ended, endReason: reason, users: users[id] ?? [])
                }
            }
        }
    }
}
