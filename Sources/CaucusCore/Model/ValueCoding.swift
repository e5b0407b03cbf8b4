/// JSON shapes of the core's small enums, chosen for clients to read easily. They are the
/// same in the store and on the wire.

/// A location is the room's id, or `null` for the main session.
extension Location: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self = container.decodeNil() ? .main : .room(try container.decode(RoomID.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .main: try container.encodeNil()
        case .room(let id): try container.encode(id)
        }
    }
}

/// `{"connected": true}` or `{"connected": false, "reconnectingUntil": ms}`.
extension Presence: Codable {
    private enum Keys: String, CodingKey { case connected, reconnectingUntil }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        if try container.decode(Bool.self, forKey: .connected) {
            self = .connected
        } else {
            self = .reconnecting(until: try container.decode(Instant.self, forKey: .reconnectingUntil))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(isConnected, forKey: .connected)
        if case .reconnecting(let until) = self { try container.encode(until, forKey: .reconnectingUntil) }
    }
}

/// `{"status": "stopping", "stopsAt": ms}`; `stopsAt` only while stopping.
extension BreakoutPhase: Codable {
    private enum Keys: String, CodingKey { case status, stopsAt }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let status = try container.decode(SubsessionStatus.self, forKey: .status)
        switch status {
        case .none: self = .none
        case .committed: self = .committed
        case .withdrawn: self = .withdrawn
        case .started: self = .started
        case .stopping: self = .stopping(until: try container.decode(Instant.self, forKey: .stopsAt))
        case .stopped: self = .stopped
        case .commitFailed, .withdrawFailed, .startFailed, .stopFailed:
            throw DecodingError.dataCorruptedError(
                forKey: .status, in: container, debugDescription: "\(status) is not a state a session can be in")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(status, forKey: .status)
        if case .stopping(let until) = self { try container.encode(until, forKey: .stopsAt) }
    }
}

/// `{"room": <location>}` for room chat, `{"to": userID}` for a direct message.
extension ChatScope: Codable {
    private enum Keys: String, CodingKey { case room, to }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        if container.contains(.to) {
            self = .direct(to: try container.decode(UserID.self, forKey: .to))
        } else {
            self = .room(try container.decodeIfPresent(RoomID.self, forKey: .room).map(Location.room) ?? .main)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        switch self {
        case .room(let location): try container.encode(location, forKey: .room)
        case .direct(let to): try container.encode(to, forKey: .to)
        }
    }
}
