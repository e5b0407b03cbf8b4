import CaucusCore

/// One subsession (breakout room) of the committed list, as it was when this value was made:
/// its id, name, definition and the users in it. Whichever flow created it (plan-and-commit
/// or create-and-invite), it is the same kind of room.
///
/// A kit is a value, like the snapshot it comes from: its `users` are those of the moment it
/// was made (an event's kit says who was in the room when the event happened) and do not
/// change afterwards. For the room as it is now, read `current` (or the session's snapshot
/// again): a kit kept from a status change shows who joined since through `current.users`.
/// `join()` acts on the room by its id, so an old kit still joins it.
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

    /// This subsession as the session sees it now, with its current users, name and
    /// assignments; nil once it is no longer in the committed list, or this user is no longer
    /// in the session.
    public var current: SubsessionKit? { engine.published.snapshot(engine: engine)?.subsession(id) }

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
