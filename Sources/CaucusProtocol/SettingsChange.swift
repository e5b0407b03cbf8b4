import CaucusCore

/// `updateSettings` names only what changes; the rest stays as the session has it.
public struct SettingsChange: Sendable, Equatable, Codable {
    public var selfSelectAllowed: Bool?
    public var returnToMainAllowed: Bool?
    public var autoMoveOnStart: Bool?
    public var roomCreators: RoomCreators?
    public var countdownSeconds: Int?
    public var timerWarningSeconds: [Int]?
    public var managersMayRecord: Bool?

    public init(
        selfSelectAllowed: Bool? = nil, returnToMainAllowed: Bool? = nil, autoMoveOnStart: Bool? = nil,
        roomCreators: RoomCreators? = nil, countdownSeconds: Int? = nil, timerWarningSeconds: [Int]? = nil,
        managersMayRecord: Bool? = nil
    ) {
        self.selfSelectAllowed = selfSelectAllowed
        self.returnToMainAllowed = returnToMainAllowed
        self.autoMoveOnStart = autoMoveOnStart
        self.roomCreators = roomCreators
        self.countdownSeconds = countdownSeconds
        self.timerWarningSeconds = timerWarningSeconds
        self.managersMayRecord = managersMayRecord
    }

    public func applied(to settings: SessionSettings) -> SessionSettings {
        var new = settings
        if let selfSelectAllowed { new.selfSelectAllowed = selfSelectAllowed }
        if let returnToMainAllowed { new.returnToMainAllowed = returnToMainAllowed }
        if let autoMoveOnStart { new.autoMoveOnStart = autoMoveOnStart }
        if let roomCreators { new.roomCreators = roomCreators }
        if let countdownSeconds { new.countdownSeconds = countdownSeconds }
        if let timerWarningSeconds { new.timerWarningSeconds = timerWarningSeconds }
        if let managersMayRecord { new.managersMayRecord = managersMayRecord }
        return new
    }
}
