import CaucusCore

/// The whole session as one user may see it: sent on join, on a resume that is too old to
/// replay, and on `getSnapshot`. From it and the events after `seq`, a client always knows
/// the state without guessing.
public struct SessionSnapshot: Sendable, Equatable, Codable {
    /// The last event this snapshot includes.
    public let seq: Int
    public let name: String
    public let you: UserID
    public let hostID: UserID?
    public let mode: SessionMode
    public let settings: SessionSettings
    public let limits: SessionLimits
    public let users: [UserView]
    public let breakout: BreakoutSnapshot
    /// The pre-list: the host's alone.
    public let preList: [PlannedRoom]?
    /// Your pending invitation, if any.
    public let invitation: RoomID?
    /// Pending help requests: the host's and managers'.
    public let helpRequests: [HelpRequest]?

    public init(state: SessionState, viewer: UserID, seq: Int) {
        let role = state.role(of: viewer) ?? .participant
        self.seq = seq
        name = state.name
        you = viewer
        hostID = state.hostID
        mode = state.mode
        settings = state.settings
        limits = state.limits
        users = state.users.values.map { UserView($0, role: state.role(of: $0)) }
        breakout = state.snapshot
        preList = role == .host ? state.preList : nil
        invitation = state.invitations[viewer]
        helpRequests = role.isManaging ? state.helpRequests : nil
    }
}

/// A user as others see them.
public struct UserView: Sendable, Equatable, Codable {
    public let id: UserID
    public let name: String
    public let role: Role
    public let location: Location
    public let presence: Presence
    public let identity: String?
    public let joinedAt: Instant

    public init(_ user: SessionUser, role: Role) {
        id = user.id
        name = user.name
        self.role = role
        location = user.location
        presence = user.presence
        identity = user.identity
        joinedAt = user.joinedAt
    }
}
