/// A user's role in the session. The host is stored once on the session, so "exactly one
/// host" holds by construction; a user is a manager by a flag of its own.
public enum Role: String, Sendable, Codable, CaseIterable, Comparable {
    case participant
    case manager
    case host

    private var rank: Int {
        switch self {
        case .participant: 0
        case .manager: 1
        case .host: 2
        }
    }

    public static func < (lhs: Role, rhs: Role) -> Bool { lhs.rank < rhs.rank }

    /// Host and managers hold the subsession-manager powers (start, stop, broadcast, moves).
    /// Package-only: an app asks a user (`CaucusUser.canManageSubsessions`), not a bare role.
    package var isManaging: Bool { self >= .manager }
}

/// What the token asked for (`role_type` 1 or 0).
public enum RoleClaim: String, Sendable, Codable, CaseIterable {
    case host
    case participant
}

/// Who is asking the session to do something.
public enum Principal: Hashable, Sendable {
    /// A joined user acting through its own connection.
    case user(UserID)
    /// The server itself: joins on behalf of a connection, the clock, dropped connections and
    /// the app's HTTP control API. It holds host authority but is nobody in the session.
    case server
}
