import OrderedCollections

/// One session as a pure state machine: `decide` turns a command into events (or refuses it),
/// `apply` folds an event into the state, `audience(of:)` says who hears it. No I/O, no clock,
/// no randomness: time and entropy arrive with each command.
public struct SessionState: Hashable, Sendable {
    public enum Lifecycle: Hashable, Sendable {
        /// Nothing has happened yet; the first join creates the session.
        case awaitingFirstJoin
        case live
        case ended(EndReason)
    }

    public internal(set) var lifecycle: Lifecycle = .awaitingFirstJoin
    public internal(set) var name: String = ""
    public internal(set) var password: String?
    public internal(set) var sessionKey: String?
    public internal(set) var createdAt = Instant(milliseconds: 0)
    public internal(set) var limits: SessionLimits
    public internal(set) var settings: SessionSettings
    public internal(set) var mode: SessionMode = .group

    /// Present users (connected or reconnecting) in join order: the first matching user is the
    /// longest present.
    public internal(set) var users: OrderedDictionary<UserID, SessionUser> = [:]
    public internal(set) var hostID: UserID?

    public internal(set) var preList: [PlannedRoom] = []
    public internal(set) var phase: BreakoutPhase = .none
    /// The committed list.
    public internal(set) var rooms: [Room] = []
    public internal(set) var timer: BreakoutTimer?
    public internal(set) var parent: ParentControl = .open
    /// Pending invitations: one per user at most, the latest wins.
    public internal(set) var invitations: [UserID: RoomID] = [:]
    /// Pending help requests, oldest first.
    public internal(set) var helpRequests: [HelpRequest] = []
    /// The host or manager whose voice every room hears now (broadcast voice), if any: one at a time.
    public internal(set) var voiceBroadcaster: UserID?
    /// Hosts and managers listening in to a room, in the order they began, with the room each
    /// hears instead of its own location.
    public internal(set) var listeners: OrderedDictionary<UserID, RoomID> = [:]
    /// The locations recorded now (see `RecordingSet`).
    public internal(set) var recording: RecordingSet = .none
    /// The latest keyed commands each present user had applied, oldest first, at most
    /// `rememberedRequestLimit` each (see `RequestKey`). Forgotten when the user leaves.
    public internal(set) var requestKeys: [UserID: [RememberedRequest]] = [:]
    /// The identities (`user_identity`) of users the host removed: a join with one is refused
    /// (`removedFromSession`) for as long as this session lives.
    public internal(set) var removedIdentities: Set<String> = []

    var nextUserNumber = 1
    var nextRoomNumber = 1
    var nextHelpNumber = 1
    var nextMessageNumber = 1

    /// An empty session that will take these limits and settings when its first user joins.
    public init(limits: SessionLimits = .standard, settings: SessionSettings = .standard) {
        self.limits = limits
        self.settings = settings
    }

    /// Rebuilds a session from its event log, starting from the empty state the app's
    /// configuration gives (which matters only until the first event).
    public init(limits: SessionLimits = .standard, settings: SessionSettings = .standard, replaying events: some Sequence<Event>) {
        self.init(limits: limits, settings: settings)
        for event in events { apply(event) }
    }
}

// MARK: - Queries

extension SessionState {
    public var isLive: Bool { lifecycle == .live }
    public var status: SubsessionStatus { phase.status }
    public var isStarted: Bool { phase.isRunning }
    public var host: SessionUser? { hostID.flatMap { users[$0] } }

    public func role(of user: SessionUser) -> Role {
        if user.id == hostID { return .host }
        return user.isManager ? .manager : .participant
    }

    public func role(of id: UserID) -> Role? { users[id].map { role(of: $0) } }

    public func room(_ id: RoomID) -> Room? { rooms.first { $0.id == id } }

    func roomIndex(_ id: RoomID) -> Int? { rooms.firstIndex { $0.id == id } }

    /// The committed list as everyone sees it.
    public var snapshot: BreakoutSnapshot {
        BreakoutSnapshot(phase: phase, rooms: rooms, timer: timer, parent: parent)
    }

    /// Participants (not host or managers) in a room: what a room's capacity counts.
    func participantCount(in room: Room) -> Int { participants(among: room.occupants) }

    func participants(among ids: [UserID]) -> Int {
        ids.reduce(0) { count, id in
            guard let user = users[id], role(of: user) == .participant else { return count }
            return count + 1
        }
    }

    /// Whether a room can take these users on top of those already in it.
    func hasSpace(in room: Room, for ids: [UserID]) -> Bool {
        guard let capacity = room.definition.capacity else { return true }
        return participantCount(in: room) + participants(among: ids) <= capacity
    }

    /// The next instant at which `tick` has something to do, if any.
    public var nextDeadline: Instant? {
        var deadlines: [Instant] = []
        for user in users.values {
            if case .reconnecting(let until) = user.presence { deadlines.append(until) }
        }
        if let timer {
            deadlines.append(timer.endsAt)
            if let warning = timer.pendingWarnings.first { deadlines.append(timer.endsAt.adding(seconds: -warning)) }
        }
        if case .stopping(let until) = phase { deadlines.append(until) }
        return deadlines.min()
    }
}
