import CaucusCore

/// An event as a client receives it. The store keeps events as `Event` encodes them, with what
/// replay needs (the claims of joining users, the session's password and key); none of that
/// reaches a client. On the wire a joining user is a `UserView`, the one user shape of events
/// and snapshots (its role, never its claim), and a session's start carries no password or key.
/// Every other event is written as the store writes it.
public struct WireEvent: Hashable, Sendable, Codable {
    public let event: Event

    public init(_ event: Event) {
        self.event = event
    }

    private enum Keys: String, CodingKey { case type, user, becomesHost, session }

    public func encode(to encoder: any Encoder) throws {
        switch event {
        case .userJoined(let user, let becomesHost):
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(Event.Kind.userJoined, forKey: .type)
            let role: Role = becomesHost ? .host : user.isManager ? .manager : .participant
            try c.encode(UserView(user, role: role), forKey: .user)
            try c.encode(becomesHost, forKey: .becomesHost)
        case .sessionStarted(let started):
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(Event.Kind.sessionStarted, forKey: .type)
            let shown = SessionStarted(
                name: started.name, password: nil, sessionKey: nil, createdAt: started.createdAt, limits: started.limits,
                settings: started.settings)
            try c.encode(shown, forKey: .session)
        default:
            try event.encode(to: encoder)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        if try c.decode(Event.Kind.self, forKey: .type) == .userJoined {
            let user = try c.decode(UserView.self, forKey: .user)
            event = .userJoined(user.seat, becomesHost: try c.decode(Bool.self, forKey: .becomesHost))
        } else {
            event = try Event(from: decoder)
        }
    }
}
