import CaucusCore

/// What happened in one session, as an app's history page shows it.
public struct SessionHistory: Sendable, Hashable, Codable {
    public let id: StoredSessionID
    public let app: String
    public let name: String
    public let startedAt: Instant
    public let endedAt: Instant?
    /// `EndReason.rawValue`.
    public let endReason: String?
    /// In join order.
    public let users: [UserHistory]

    public init(
        id: StoredSessionID, app: String, name: String, startedAt: Instant, endedAt: Instant?, endReason: String?,
        users: [UserHistory]
    ) {
        self.id = id
        self.app = app
        self.name = name
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.endReason = endReason
        self.users = users
    }
}

/// One user's stay in a session. A user who leaves and joins again gets a new id from the
/// session, so each stay is its own entry.
public struct UserHistory: Sendable, Hashable, Codable {
    public let userID: UserID
    /// The latest name: renames update it.
    public let name: String
    public let joinedAt: Instant
    public let leftAt: Instant?
    /// `LeaveReason.rawValue`, or ``UserHistory/sessionEndedReason`` when the session ended
    /// with the user in it.
    public let leaveReason: String?

    /// The leave reason of users still present when their session ended.
    public static let sessionEndedReason = "sessionEnded"

    public init(userID: UserID, name: String, joinedAt: Instant, leftAt: Instant?, leaveReason: String?) {
        self.userID = userID
        self.name = name
        self.joinedAt = joinedAt
        self.leftAt = leftAt
        self.leaveReason = leaveReason
    }
}
