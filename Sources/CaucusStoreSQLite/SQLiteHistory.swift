import CaucusCore
import CaucusStore
import SQLiteNIO

/// One SQL statement with its parameters.
struct SQLStatement {
    let sql: String
    let binds: [SQLiteData]
}

/// The `sessions` and `session_users` statements of each history change. They run in the
/// same transaction as the event's insert, so history never disagrees with the log. A join's
/// row is written by a trigger on the event's insert instead (see `SQLiteSchema`).
enum SQLiteHistory {
    static func statements(for change: HistoryChange, in session: StoredSessionID) -> [SQLStatement] {
        let id = SQLiteData(session)
        switch change {
        case .sessionNamed(let name):
            return [SQLStatement(sql: "UPDATE sessions SET name = ?1 WHERE id = ?2", binds: [.text(name), id])]
        case .userJoined:
            // The `project_user_joined` trigger writes the row, in the same statement.
            return []
        case .userLeft(let user, let reason, let at):
            return [
                SQLStatement(
                    sql: """
                        UPDATE session_users SET left_at = ?1, leave_reason = ?2
                        WHERE session_id = ?3 AND user_id = ?4 AND left_at IS NULL
                        """,
                    binds: [SQLiteData(at), .text(reason), id, SQLiteData(user)])
            ]
        case .userRenamed(let user, let name):
            return [
                SQLStatement(
                    sql: "UPDATE session_users SET name = ?1 WHERE session_id = ?2 AND user_id = ?3",
                    binds: [.text(name), id, SQLiteData(user)])
            ]
        case .sessionEnded(let reason, let at):
            return [
                SQLStatement(
                    sql: """
                        UPDATE session_users SET left_at = ?1, leave_reason = ?2
                        WHERE session_id = ?3 AND left_at IS NULL
                        """,
                    binds: [SQLiteData(at), .text(UserHistory.sessionEndedReason), id]),
                SQLStatement(
                    sql: "UPDATE sessions SET ended_at = ?1, end_reason = ?2 WHERE id = ?3",
                    binds: [SQLiteData(at), .text(reason), id]),
            ]
        }
    }
}

extension SQLiteData {
    init(_ instant: Instant) { self = .integer(SQLiteInt64(instant.milliseconds)) }
    init(_ session: StoredSessionID) { self = .integer(SQLiteInt64(session.rawValue)) }
    init(_ user: UserID) { self = .integer(SQLiteInt64(user.rawValue)) }
    init(_ value: Int) { self = .integer(SQLiteInt64(value)) }
}
