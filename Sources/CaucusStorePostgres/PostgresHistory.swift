import CaucusCore
import CaucusStore
import PostgresNIO

/// The `sessions` and `session_users` statement of each history change, run in the same
/// transaction as the events' insert, so history never disagrees with the log.
enum PostgresHistory {
    /// The statements of a batch's changes. Its joins go first, as one INSERT: a join storm's
    /// batch is one trip to the server, not one per user. Nothing else in a batch can come
    /// before a join it concerns: a user id is new with each join and never given again.
    static func queries(for changes: [HistoryChange], in session: StoredSessionID) -> [PostgresQuery] {
        var joined: (users: [Int64], names: [String], at: [Int64]) = ([], [], [])
        var others: [PostgresQuery] = []
        for change in changes {
            if case .userJoined(let user, let name, let at) = change {
                joined.users.append(Int64(user.rawValue))
                joined.names.append(name)
                joined.at.append(at.milliseconds)
            } else {
                others.append(query(for: change, in: session))
            }
        }
        guard !joined.users.isEmpty else { return others }
        let insert: PostgresQuery = """
            INSERT INTO session_users (session_id, user_id, name, joined_at)
            SELECT \(session.rawValue), * FROM unnest(\(joined.users)::bigint[], \(joined.names)::text[], \(joined.at)::bigint[])
            """
        return [insert] + others
    }

    static func query(for change: HistoryChange, in session: StoredSessionID) -> PostgresQuery {
        let id = session.rawValue
        switch change {
        case .sessionNamed(let name):
            return "UPDATE sessions SET name = \(name) WHERE id = \(id)"
        case .userJoined(let user, let name, let at):
            return """
                INSERT INTO session_users (session_id, user_id, name, joined_at)
                VALUES (\(id), \(Int64(user.rawValue)), \(name), \(at.milliseconds))
                """
        case .userLeft(let user, let reason, let at):
            return """
                UPDATE session_users SET left_at = \(at.milliseconds), leave_reason = \(reason)
                WHERE session_id = \(id) AND user_id = \(Int64(user.rawValue)) AND left_at IS NULL
                """
        case .userRenamed(let user, let name):
            return "UPDATE session_users SET name = \(name) WHERE session_id = \(id) AND user_id = \(Int64(user.rawValue))"
        case .sessionEnded(let reason, let at):
            // One statement for both tables: the users still in it leave as the session ends.
            return """
                WITH leaving AS (
                    UPDATE session_users SET left_at = \(at.milliseconds), leave_reason = \(UserHistory.sessionEndedReason)
                    WHERE session_id = \(id) AND left_at IS NULL
                )
                UPDATE sessions SET ended_at = \(at.milliseconds), end_reason = \(reason) WHERE id = \(id)
                """
        }
    }
}
