/// Everything that happens to a session. `apply` folds events into state without checking
/// them; replaying a session's events from an empty state rebuilds it exactly.
public enum Event: Hashable, Sendable {
    case sessionStarted(SessionStarted)
    case userJoined(SessionUser, becomesHost: Bool)
    case userLeft(UserID, reason: LeaveReason, newHost: UserID?)
    case sessionEnded(EndReason)
    case hostChanged(from: UserID?, to: UserID)
    case managerChanged(UserID, isManager: Bool)
    case userRenamed(UserID, name: String)
    case userReconnecting(UserID, until: Instant)
    case userResumed(UserID)
    case modeChanged(SessionMode)
    case settingsChanged(SessionSettings)

    case preListChanged([PlannedRoom])
    /// A status change with the full committed list, its users and the whole move it makes:
    /// a user listed in a room is there afterwards, everyone else is in the main session.
    case statusChanged(BreakoutSnapshot)
    /// Users moved between rooms without a status change (one event however many move).
    case usersMoved([UserMove])
    /// Who the committed rooms expect, changed while they are not open.
    case assignmentsChanged([RoomAssignment])
    /// A committed room has a new name; nothing else about it changed.
    case roomRenamed(RoomID, name: String)
    case invited(Invitation)
    case invitationRejected(UserID, room: RoomID)
    case parentControlChanged(ParentControl)
    case timerChanged(BreakoutTimer?)
    case timerWarning(secondsRemaining: Int)

    case helpRequested(HelpRequest)
    case helpAnswered(HelpRequestID, requester: UserID, result: HelpResult, by: UserID?)
    case chatMessage(ChatMessage)
    case broadcast(from: UserID?, text: String, at: Instant)
    /// What a user's grown role lets it see; to that user alone.
    case roleView(RoleView)
    /// What a user publishes now (the whole set). `by` is the host or manager who turned some
    /// of it off (`muteUser`); nil when the user changed it itself. Nobody but the user turns
    /// anything on.
    case mediaChanged(UserID, publishing: MediaKinds, by: UserID? = nil)
    /// A host or manager began (`active`) or ceased speaking to every room at once.
    case voiceBroadcast(UserID, active: Bool)
    /// A host or manager began (`active`) or ceased listening in to a room.
    case listening(UserID, room: RoomID, active: Bool)
    /// What the session records now (the whole set), after a start or a stop.
    case recordingChanged(RecordingSet)
}

public struct SessionStarted: Hashable, Sendable, Codable {
    public let name: String
    public let password: String?
    public let sessionKey: String?
    public let createdAt: Instant
    public let limits: SessionLimits
    public let settings: SessionSettings

    public init(name: String, password: String?, sessionKey: String?, createdAt: Instant, limits: SessionLimits, settings: SessionSettings) {
        self.name = name
        self.password = password
        self.sessionKey = sessionKey
        self.createdAt = createdAt
        self.limits = limits
        self.settings = settings
    }
}

public enum LeaveReason: String, Hashable, Sendable, Codable {
    case left
    case removed
    case timedOut
}

public enum EndReason: String, Hashable, Sendable, Codable {
    case endedByHost
    case endedByServer
    case everyoneLeft
}

/// The committed list as everyone sees it, with the breakout's status and parent control.
public struct BreakoutSnapshot: Hashable, Sendable, Codable {
    public let phase: BreakoutPhase
    public let rooms: [Room]
    public let timer: BreakoutTimer?
    public let parent: ParentControl

    public var status: SubsessionStatus { phase.status }

    public init(phase: BreakoutPhase, rooms: [Room], timer: BreakoutTimer?, parent: ParentControl) {
        self.phase = phase
        self.rooms = rooms
        self.timer = timer
        self.parent = parent
    }
}

public struct UserMove: Hashable, Sendable, Codable {
    public let user: UserID
    public let to: Location
    public init(user: UserID, to: Location) {
        self.user = user
        self.to = to
    }
}

public struct RoomAssignment: Hashable, Sendable, Codable {
    public let room: RoomID
    public let users: [UserID]

    public init(room: RoomID, users: [UserID]) {
        self.room = room
        self.users = users
    }
}

public struct Invitation: Hashable, Sendable, Codable {
    public let users: [UserID]
    public let room: RoomID
    public let by: UserID?

    public init(users: [UserID], room: RoomID, by: UserID?) {
        self.users = users
        self.room = room
        self.by = by
    }
}

public struct HelpRequest: Hashable, Sendable, Codable {
    public let id: HelpRequestID
    public let requester: UserID
    public let requesterName: String
    public let room: RoomID
    public let roomName: String

    public init(id: HelpRequestID, requester: UserID, requesterName: String, room: RoomID, roomName: String) {
        self.id = id
        self.requester = requester
        self.requesterName = requesterName
        self.room = room
        self.roomName = roomName
    }

    /// The same request, its room renamed.
    func inRoom(named name: String) -> HelpRequest {
        HelpRequest(id: id, requester: requester, requesterName: requesterName, room: room, roomName: name)
    }
}

/// What the requester of help hears back.
public enum HelpResult: String, Hashable, Sendable, Codable, CaseIterable {
    case ignored
    /// No host or manager was free in the main session; ask again later.
    case busy
    case managerJoining
    case managerAlreadyInSubsession
}

public struct ChatMessage: Hashable, Sendable, Codable {
    public let id: MessageID
    public let from: UserID
    public let scope: ChatScope
    public let text: String
    public let sentAt: Instant
    /// The key the sender gave the message, if any: kept with it in the log, so that a session
    /// rebuilt from the log (after a restart, or on another node) still knows it was applied.
    public let requestKey: RequestKey?

    public init(id: MessageID, from: UserID, scope: ChatScope, text: String, sentAt: Instant, requestKey: RequestKey? = nil) {
        self.id = id
        self.from = from
        self.scope = scope
        self.text = text
        self.sentAt = sentAt
        self.requestKey = requestKey
    }
}

public enum ChatScope: Hashable, Sendable {
    case room(Location)
    case direct(to: UserID)
}
