/// The locations a session records: the main session and chosen rooms, or every room (those
/// that exist and those created while it is on). Recording belongs to a location, not to a
/// user: whoever is in a recorded location is recorded, and a user moved out of it is not.
public struct RecordingSet: Hashable, Sendable, Codable {
    /// Locations chosen one by one (the main session first, then rooms by id). While
    /// `everyRoom` is on it names no room: every room is recorded anyway.
    public internal(set) var locations: [Location]
    /// Every room is recorded, including rooms created later (from their start).
    public internal(set) var everyRoom: Bool
    /// The last stop the server made on its own (a full disk, a quota), nil when none. The next
    /// `startRecording` or `stopRecording` clears it. Encoded only when present.
    public internal(set) var stopped: RecordingStop?

    public init(locations: [Location] = [], everyRoom: Bool = false, stopped: RecordingStop? = nil) {
        self.locations = Self.ordered(locations)
        self.everyRoom = everyRoom
        self.stopped = stopped
    }

    public static let none = RecordingSet()

    /// Whether nothing is recorded now (a past stop may still be told: see `stopped`).
    public var isEmpty: Bool { locations.isEmpty && !everyRoom }

    /// Whether `location` is recorded now, given the rooms that exist.
    public func records(_ location: Location, among rooms: [Room]) -> Bool {
        switch location {
        case .main: locations.contains(.main)
        case .room(let id): rooms.contains { $0.id == id } && (everyRoom || locations.contains(location))
        }
    }

    /// Every location recorded now, the main session first, then rooms in the committed list's order.
    public func recordedLocations(among rooms: [Room]) -> [Location] {
        let recordedRooms = rooms.map { Location.room($0.id) }.filter { records($0, among: rooms) }
        return (locations.contains(.main) ? [.main] : []) + recordedRooms
    }

    /// The same set without rooms that no longer exist.
    func keeping(_ rooms: [Room]) -> RecordingSet {
        let existing = Set(rooms.map(\.id))
        return RecordingSet(
            locations: locations.filter { $0.roomID.map(existing.contains) ?? true }, everyRoom: everyRoom, stopped: stopped)
    }

    /// The main session first, then rooms by id, each once.
    static func ordered(_ locations: [Location]) -> [Location] {
        let rooms = Set(locations.compactMap(\.roomID)).sorted()
        return (locations.contains(.main) ? [.main] : []) + rooms.map(Location.room)
    }
}

/// What `startRecording` and `stopRecording` name.
public enum RecordingTarget: Hashable, Sendable {
    /// The main session and/or rooms, each at most once.
    case locations([Location])
    /// Start: every room, now and created later. Stop: everything recorded (the main session too).
    case all
}
