/// Limits that come from the app's configuration, not from the host. Defaults are the seeds'.
/// Lengths count Unicode scalars, so a name cannot hide an unbounded payload in one
/// user-perceived character.
public struct SessionLimits: Hashable, Sendable, Codable {
    public var maxSubsessions: Int
    public var maxSessionNameLength: Int
    public var maxUserNameLength: Int
    public var maxPasswordLength: Int
    public var maxUserIdentityLength: Int
    public var maxSessionKeyLength: Int
    public var maxRoomNameLength: Int
    public var maxChatLength: Int
    public var maxUsersPerSession: Int
    public var maxRoomCapacity: Int
    public var reconnectGraceSeconds: Int
    public var maxTimerSeconds: Int
    public var maxCountdownSeconds: Int

    public init(
        maxSubsessions: Int = 50, maxSessionNameLength: Int = 150, maxUserNameLength: Int = 200,
        maxPasswordLength: Int = 10, maxUserIdentityLength: Int = 35, maxSessionKeyLength: Int = 36,
        maxRoomNameLength: Int = 150, maxChatLength: Int = 4000, maxUsersPerSession: Int = 10_000,
        maxRoomCapacity: Int = 1_000, reconnectGraceSeconds: Int = 30, maxTimerSeconds: Int = 86_400,
        maxCountdownSeconds: Int = 3_600
    ) {
        self.maxSubsessions = maxSubsessions
        self.maxSessionNameLength = maxSessionNameLength
        self.maxUserNameLength = maxUserNameLength
        self.maxPasswordLength = maxPasswordLength
        self.maxUserIdentityLength = maxUserIdentityLength
        self.maxSessionKeyLength = maxSessionKeyLength
        self.maxRoomNameLength = maxRoomNameLength
        self.maxChatLength = maxChatLength
        self.maxUsersPerSession = maxUsersPerSession
        self.maxRoomCapacity = maxRoomCapacity
        self.reconnectGraceSeconds = reconnectGraceSeconds
        self.maxTimerSeconds = maxTimerSeconds
        self.maxCountdownSeconds = maxCountdownSeconds
    }

    public static let standard = SessionLimits()

    private enum CodingKeys: String, CodingKey {
        case maxSubsessions, maxSessionNameLength, maxUserNameLength, maxPasswordLength, maxUserIdentityLength
        case maxSessionKeyLength, maxRoomNameLength, maxChatLength, maxUsersPerSession, maxRoomCapacity
        case reconnectGraceSeconds, maxTimerSeconds, maxCountdownSeconds
    }

    /// An app's configuration names only the limits it changes; the rest keep the seeds' defaults.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = SessionLimits.standard
        func value(_ key: CodingKeys, _ fallback: Int) throws -> Int { try c.decodeIfPresent(Int.self, forKey: key) ?? fallback }
        self.init(
            maxSubsessions: try value(.maxSubsessions, d.maxSubsessions),
            maxSessionNameLength: try value(.maxSessionNameLength, d.maxSessionNameLength),
            maxUserNameLength: try value(.maxUserNameLength, d.maxUserNameLength),
            maxPasswordLength: try value(.maxPasswordLength, d.maxPasswordLength),
            maxUserIdentityLength: try value(.maxUserIdentityLength, d.maxUserIdentityLength),
            maxSessionKeyLength: try value(.maxSessionKeyLength, d.maxSessionKeyLength),
            maxRoomNameLength: try value(.maxRoomNameLength, d.maxRoomNameLength),
            maxChatLength: try value(.maxChatLength, d.maxChatLength),
            maxUsersPerSession: try value(.maxUsersPerSession, d.maxUsersPerSession),
            maxRoomCapacity: try value(.maxRoomCapacity, d.maxRoomCapacity),
            reconnectGraceSeconds: try value(.reconnectGraceSeconds, d.reconnectGraceSeconds),
            maxTimerSeconds: try value(.maxTimerSeconds, d.maxTimerSeconds),
            maxCountdownSeconds: try value(.maxCountdownSeconds, d.maxCountdownSeconds))
    }
}

extension String {
    /// The length the limits are measured in.
    var limitLength: Int { unicodeScalars.count }

    var isBlank: Bool { allSatisfy(\.isWhitespace) }
}
