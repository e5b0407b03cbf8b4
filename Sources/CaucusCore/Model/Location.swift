/// Where a user is: the main session or exactly one subsession. A user's location is a single
/// value, so "in at most one room" holds by construction, and rooms cannot nest.
public enum Location: Hashable, Sendable, CustomStringConvertible {
    case main
    case room(RoomID)

    public var roomID: RoomID? {
        if case .room(let id) = self { return id }
        return nil
    }

    public var description: String {
        switch self {
        case .main: "main"
        case .room(let id): id.description
        }
    }
}
