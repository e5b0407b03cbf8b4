/// What a room offers, as the create-and-invite flow defines it. `capacity` counts
/// participants; the host and managers may always enter (to help, for instance).
public struct RoomDefinition: Hashable, Sendable, Codable {
    public var capacity: Int?
    public var audio: Bool
    public var video: Bool
    public var screenShare: Bool
    public var canvas: Bool

    public init(capacity: Int? = nil, audio: Bool = true, video: Bool = true, screenShare: Bool = true, canvas: Bool = false) {
        self.capacity = capacity
        self.audio = audio
        self.video = video
        self.screenShare = screenShare
        self.canvas = canvas
    }

    public static let standard = RoomDefinition()

    private enum CodingKeys: String, CodingKey { case capacity, audio, video, screenShare, canvas }

    /// Omitted fields take the standard definition's values.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let standard = RoomDefinition.standard
        self.init(
            capacity: try container.decodeIfPresent(Int.self, forKey: .capacity),
            audio: try container.decodeIfPresent(Bool.self, forKey: .audio) ?? standard.audio,
            video: try container.decodeIfPresent(Bool.self, forKey: .video) ?? standard.video,
            screenShare: try container.decodeIfPresent(Bool.self, forKey: .screenShare) ?? standard.screenShare,
            canvas: try container.decodeIfPresent(Bool.self, forKey: .canvas) ?? standard.canvas)
    }
}

/// A committed subsession. Whichever flow created it, it is the same kind of room.
public struct Room: Hashable, Sendable, Codable {
    public let id: RoomID
    /// Changed only by `renameRoom`; everything else refers to the room by its id.
    public internal(set) var name: String
    public let definition: RoomDefinition
    /// Users the plan puts here; they are moved (or invited) when the breakout starts.
    public internal(set) var assigned: [UserID]
    /// Users in the room now, in the order they entered.
    public internal(set) var occupants: [UserID]

    public init(id: RoomID, name: String, definition: RoomDefinition = .standard, assigned: [UserID] = [], occupants: [UserID] = []) {
        self.id = id
        self.name = name
        self.definition = definition
        self.assigned = assigned
        self.occupants = occupants
    }
}

/// An entry of the host's pre-list: a room to be created on commit, with its pre-assigned users.
public struct PlannedRoom: Hashable, Sendable, Codable {
    /// The planned room's identity within the pre-list (compared case-insensitively).
    public internal(set) var name: String
    public internal(set) var assigned: [UserID]

    public init(name: String, assigned: [UserID] = []) {
        self.name = name
        self.assigned = assigned
    }
}
