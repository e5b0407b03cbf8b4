/// Per-session choices the host may change at any time.
public struct SessionSettings: Hashable, Sendable, Codable {
    /// Participants may choose a started subsession themselves.
    public var selfSelectAllowed: Bool
    /// Participants may return to the main session on their own.
    public var returnToMainAllowed: Bool
    /// On start, assigned users are moved; otherwise they are invited and accept themselves.
    public var autoMoveOnStart: Bool
    /// Who may create rooms with the create-and-invite flow.
    public var roomCreators: RoomCreators
    /// Default countdown, in seconds, between stop and everyone being returned.
    public var countdownSeconds: Int
    /// Seconds before a timer's end at which everyone gets a warning.
    public var timerWarningSeconds: [Int]
    /// Managers may start and stop recording, as the host may.
    public var managersMayRecord: Bool

    public init(
        selfSelectAllowed: Bool = true, returnToMainAllowed: Bool = true, autoMoveOnStart: Bool = true,
        roomCreators: RoomCreators = .managers, countdownSeconds: Int = 60, timerWarningSeconds: [Int] = [60],
        managersMayRecord: Bool = false
    ) {
        self.selfSelectAllowed = selfSelectAllowed
        self.returnToMainAllowed = returnToMainAllowed
        self.autoMoveOnStart = autoMoveOnStart
        self.roomCreators = roomCreators
        self.countdownSeconds = countdownSeconds
        self.timerWarningSeconds = timerWarningSeconds
        self.managersMayRecord = managersMayRecord
    }

    public static let standard = SessionSettings()

    private enum CodingKeys: String, CodingKey {
        case selfSelectAllowed, returnToMainAllowed, autoMoveOnStart, roomCreators, countdownSeconds, timerWarningSeconds
        // Added with recording: settings stored before it let managers record nothing.
        case managersMayRecord
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        selfSelectAllowed = try container.decode(Bool.self, forKey: .selfSelectAllowed)
        returnToMainAllowed = try container.decode(Bool.self, forKey: .returnToMainAllowed)
        autoMoveOnStart = try container.decode(Bool.self, forKey: .autoMoveOnStart)
        roomCreators = try container.decode(RoomCreators.self, forKey: .roomCreators)
        countdownSeconds = try container.decode(Int.self, forKey: .countdownSeconds)
        timerWarningSeconds = try container.decode([Int].self, forKey: .timerWarningSeconds)
        managersMayRecord = try container.decodeIfPresent(Bool.self, forKey: .managersMayRecord) ?? false
    }
}

public enum RoomCreators: String, Sendable, Codable, CaseIterable {
    case host
    case managers
    case everyone

    func admits(_ role: Role) -> Bool {
        switch self {
        case .host: role == .host
        case .managers: role.isManaging
        case .everyone: true
        }
    }
}

public enum SessionMode: String, Sendable, Codable, CaseIterable {
    /// Breakouts allowed (the default).
    case group
    /// Every breakout operation fails with `lectureMode` (EnableX's 5067).
    case lecture
}

/// Parent-room control while breakouts run.
public struct ParentControl: Hashable, Sendable, Codable {
    public var paused: Bool
    public var audioMuted: Bool
    public var videoMuted: Bool

    public init(paused: Bool = false, audioMuted: Bool = false, videoMuted: Bool = false) {
        self.paused = paused
        self.audioMuted = audioMuted
        self.videoMuted = videoMuted
    }

    public static let open = ParentControl()
}

/// A running breakout timer.
public struct BreakoutTimer: Hashable, Sendable, Codable {
    public let endsAt: Instant
    /// Warning offsets (seconds before `endsAt`) not yet announced, largest first.
    public let pendingWarnings: [Int]

    public init(endsAt: Instant, pendingWarnings: [Int]) {
        self.endsAt = endsAt
        self.pendingWarnings = pendingWarnings
    }

    /// A timer from `now` to `endsAt`, arming only the warnings still ahead.
    static func arming(endsAt: Instant, now: Instant, warnings: [Int]) -> BreakoutTimer {
        let remaining = now.secondsUntil(endsAt)
        let ahead = Set(warnings.filter { $0 > 0 && $0 < remaining }).sorted(by: >)
        return BreakoutTimer(endsAt: endsAt, pendingWarnings: ahead)
    }
}
