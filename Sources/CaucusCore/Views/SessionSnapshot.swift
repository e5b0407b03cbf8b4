import OrderedCollections

/// The whole session as one user may see it: sent on join, on a resume that is too old to
/// replay, and on `getSnapshot`. From it and the events after `seq`, a client always knows
/// the state without guessing: `SessionState(restoring:)` rebuilds exactly
/// `state.visible(to: you)`, and `apply` of each later event keeps it so.
public struct SessionSnapshot: Sendable, Equatable, Codable {
    /// The last event this snapshot includes.
    public let seq: Int
    public let name: String
    public let createdAt: Instant
    public let you: UserID
    public let hostID: UserID?
    public let mode: SessionMode
    public let settings: SessionSettings
    public let limits: SessionLimits
    public private(set) var users: [UserView]
    public let breakout: BreakoutSnapshot
    /// The pre-list: the host's alone.
    public let preList: [PlannedRoom]?
    /// Your pending invitation, if any.
    public let invitation: RoomID?
    /// Everyone's pending invitations: the host's and managers'.
    public let invitations: [PendingInvitation]?
    /// Pending help requests: the host's and managers'.
    public let helpRequests: [HelpRequest]?
    /// Who broadcasts its voice to every room, if anyone.
    public let voiceBroadcaster: UserID?
    /// Who listens in to which room, in the order they began; absent when nobody does. Shown
    /// to everyone: a room always knows who listens.
    public let listeners: [Listener]?
    /// What the session records, and the server's last stop; absent when it records nothing and
    /// there is no stop to tell. Shown to everyone: a user always knows whether its location is recorded.
    public let recording: RecordingSet?

    public init(state: SessionState, viewer: UserID, seq: Int) {
        let role = state.role(of: viewer) ?? .participant
        self.seq = seq
        name = state.name
        createdAt = state.createdAt
        you = viewer
        hostID = state.hostID
        mode = state.mode
        settings = state.settings
        limits = state.limits
        users = state.users.values.map { UserView($0, role: state.role(of: $0)) }
        breakout = state.snapshot
        preList = role == .host ? state.preList : nil
        invitation = state.invitations[viewer]
        invitations = role.isManaging ? PendingInvitation.list(state.invitations) : nil
        helpRequests = role.isManaging ? state.helpRequests : nil
        voiceBroadcaster = state.voiceBroadcaster
        listeners = state.listeners.isEmpty ? nil : Listener.list(state.listeners)
        recording = state.recording == .none ? nil : state.recording
    }

    /// The same snapshot with another user list. The server encodes a big session's user list
    /// once and extends it as users join, then splices it into each join reply.
    public func replacingUsers(with users: [UserView]) -> SessionSnapshot {
        var copy = self
        copy.users = users
        return copy
    }
}

/// One user's pending invitation to a room.
public struct PendingInvitation: Hashable, Sendable, Codable {
    public let user: UserID
    public let room: RoomID

    public init(user: UserID, room: RoomID) {
        self.user = user
        self.room = room
    }

    /// The invitations in the order of their users' ids, so the same state lists them alike.
    static func list(_ invitations: [UserID: RoomID]) -> [PendingInvitation] {
        invitations.map { PendingInvitation(user: $0.key, room: $0.value) }.sorted { $0.user.rawValue < $1.user.rawValue }
    }
}

/// A host or manager listening in to a room.
public struct Listener: Hashable, Sendable, Codable {
    public let user: UserID
    public let room: RoomID

    public init(user: UserID, room: RoomID) {
        self.user = user
        self.room = room
    }

    /// The listeners in the order they began.
    static func list(_ listeners: OrderedDictionary<UserID, RoomID>) -> [Listener] {
        listeners.map { Listener(user: $0.key, room: $0.value) }
    }
}
