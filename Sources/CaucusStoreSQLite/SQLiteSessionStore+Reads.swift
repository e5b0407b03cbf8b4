import CaucusCore
import Foundation
import SQLiteNIO

extension SQLiteSessionStore {
    public func liveSessions() async throws -> [StoredSession] {
        try await exclusive {
            try await transaction(.deferred) {
                let sessions = try await connection.query(
                    "SELECT id, app, name, created_at FROM sessions WHERE ended_at IS NULL ORDER BY id")
                let eventRows = try await connection.query(
                    """
                    SELECT e.session_id, e.seq, e.at, e.body
                    FROM events e JOIN sessions s ON s.id = e.session_id
                    WHERE s.ended_at IS NULL
                    ORDER BY e.session_id, e.seq
                    """)
                var logs: [StoredSessionID: [SequencedEvent]] = [:]
                for row in eventRows {
                    let session = try row.sessionID("session_id")
                    logs[session, default: []].append(try decodeEvent(row, of: session))
                }
                return try sessions.map { row in
                    let id = try row.sessionID("id")
                    return StoredSession(
                        id: id, app: try row.text("app"), name: try row.text("name"),
                        createdAt: try row.instant("created_at"), events: logs[id] ?? [])
                }
            }
        }
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

    private func decodeEvent(_ row: SQLiteRow, of session: StoredSessionID) throws -> SequencedEvent {
        let seq = try row.int("seq")
        let event: Event
        do {
            event = try decoder.decode(Event.self, from: Data(try row.text("body").utf8))
        } catch {
            throw StoreError.undecodable(seq, in: session, error)
        }
        return SequencedEvent(seq: seq, at: try row.instant("at"), event: event)
    }
}
