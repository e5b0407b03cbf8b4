/// A verified join: the server has checked the token; the session checks everything else.
public struct JoinRequest: Hashable, Sendable, Codable {
    public var sessionName: String
    public var userName: String
    public var claim: RoleClaim
    public var password: String?
    public var userIdentity: String?
    public var sessionKey: String?

    public init(
        sessionName: String, userName: String, claim: RoleClaim = .participant, password: String? = nil,
        userIdentity: String? = nil, sessionKey: String? = nil
    ) {
        self.sessionName = sessionName
        self.userName = userName
        self.claim = claim
        self.password = password
        self.userIdentity = userIdentity
        self.sessionKey = sessionKey
    }
}

/// Options of `start`.
public struct StartOptions: Hashable, Sendable, Codable {
    /// Seconds until the breakout stops by itself; nil for no timer.
    public var durationSeconds: Int?
    /// Distribute unassigned main-session participants among the rooms, balanced and random.
    public var autoAssign: Bool
    /// Overrides the session's `autoMoveOnStart` for this start.
    public var autoMove: Bool?

    public init(durationSeconds: Int? = nil, autoAssign: Bool = false, autoMove: Bool? = nil) {
        self.durationSeconds = durationSeconds
        self.autoAssign = autoAssign
        self.autoMove = autoMove
    }
}

/// How a manager answers a help request.
public enum HelpAnswer: String, Hashable, Sendable, Codable, CaseIterable {
    case ignore
    case join
}

/// Where a chat message goes.
public enum ChatTarget: Hashable, Sendable {
    /// Everyone in the sender's room (the main session or its subsession).
    case room
    /// One user, wherever they are.
    case user(UserID)
}
