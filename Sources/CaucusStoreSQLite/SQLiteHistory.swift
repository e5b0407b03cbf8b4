import CaucusCore
import SQLiteNIO

/// One SQL statement with its parameters.
struct SQLStatement {
    let sql: String
    let binds: [SQLiteData]
}

/// How each event changes the `sessions` and `session_users` tables. It runs in the same
/// transaction as the event's insert, so history never disagrees with the log. A join's row
/// is written by a trigger on the event's insert instead (see `SQLiteSchema`).
enum HistoryProjection {
    static func statements(for sequenced: SequencedEvent, in session: StoredSessionID) -> [SQLStatement] {
        let id = SQLiteData(session)
        let at = SQLiteData(sequenced.at)
        switch sequenced.event {
        case .sessionStarted(let started):
            // The name as the core accepted it from the first joiner is the one history shows.
            return [SQLStatement(sql: "UPDATE sessions SET name = ?1 WHERE id = ?2", binds: [.text(started.name), id])]
        case .userLeft(let user, let reason, _):
            return [
                SQLStatement(
                    sql: """
                        UPDATE session_users SET left_at = ?1, leave_reason = ?2
                        WHERE session_id = ?3 AND user_id = ?4 AND left_at IS NULL
                        """,
                    binds: [at, .text(reason.rawValue), id, SQLiteData(user)])
            ]
        case .userRenamed(let user, let name):
            return [
                SQLStatement(
                    sql: "UPDATE session_users SET name = ?1 WHERE session_id = ?2 AND user_id = ?3",
                    binds: [.text(name), id, SQLiteData(user)])
            ]
        case .sessionEnded(let reason):
            return [
                SQLStatement(
                    sql: """
                        UPDATE session_users SET left_at = ?1, leave_reason = ?2
                        WHERE session_id = ?3 AND left_at IS NULL
                        """,
                    binds: [at, .text(UserHistory.sessionEndedReason), id]),
                SQLStatement(
                    sql: "UPDATE sessions SET ended_at = ?1, end_reason = ?2 WHERE id = ?3",
                    binds: [at, .text(reason.rawValue), id]),
            ]
        case .userJoined:
            // The `project_user_joined` trigger writes the row, in the same statement.
            return []
        case .hostChanged, .managerChanged, .userReconnecting, .userResumed, .modeChanged, .settingsChanged,
            .preListChanged, .statusChanged, .usersMoved, .assignmentsChanged, .roomRenamed, .invited, .invitationRejected,
            .parentControlChanged, .timerChanged, .timerWarning, .helpRequested, .helpAnswered, .chatMessage, .broadcast,
            .roleView, .mediaChanged:
            // Listed rather than `default`, so a new event kind makes us decide whether history
            // cares about it.
            return []
        }
    }
}

extension SQLiteData {
    init(_ instant: Instant) { self = .integer(SQLiteInt64(instant.milliseconds)) }
    init(_ session: StoredSessionID) { self = .integer(SQLiteInt64(session.rawValue)) }
    init(_ user: UserID) { self = .integer(SQLiteInt64(user.rawValue)) }
    init(_ value: Int) { self = .integer(SQLiteInt64(value)) }
}
