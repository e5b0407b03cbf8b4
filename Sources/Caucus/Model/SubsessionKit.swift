import CaucusCore

/// One subsession (breakout room) of the committed list, as it was when this value was made:
/// its id, name, definition and the users in it. Whichever flow created it (plan-and-commit
/// or create-and-invite), it is the same kind of room.
public struct SubsessionKit: Sendable, Identifiable, Hashable, CustomStringConvertible {
    public let id: RoomID
    public let name: String
    public let definition: RoomDefinition
    /// The users in the subsession now, in the order they entered.
    public let users: [CaucusUser]
    /// The users the plan puts here (moved or invited when the subsessions start).
    public let assignedUsers: [CaucusUser]
    private let engine: SessionEngine

    init(_ room: Room, in state: SessionState, engine: SessionEngine) {
        id = room.id
        name = room.name
        definition = room.definition
        users = state.caucusUsers(room.occupants)
        assignedUsers = state.caucusUsers(room.assigned)
        self.engine = engine
    }

    /// Joins this subsession (it must be started; participants need self-select allowed).
    /// Returns once this user is in it.
    public func join() async throws(SessionError) {
        try await engine.perform(.room(id, .joinRoom))
    }

    public static func == (lhs: SubsessionKit, rhs: SubsessionKit) -> Bool {
        lhs.id == rhs.id && lhs.name == rhs.name && lhs.definition == rhs.definition && lhs.users == rhs.users
            && lhs.assignedUsers == rhs.assignedUsers
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(users)
    }

    public var description: String { "\(name) (\(id)): \(users.map(\.name).joined(separator: ", "))" }
}

extension SessionState {
    func kits(engine: SessionEngine) -> [SubsessionKit] {
        rooms.map { SubsessionKit($0, in: self, engine: engine) }
    }

    func kit(_ id: RoomID, engine: SessionEngine) -> SubsessionKit? {
        room(id).map { SubsessionKit($0, in: self, engine: engine) }
    }
}
