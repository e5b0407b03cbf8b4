/// One user present in the session (connected or holding its seat while reconnecting).
public struct SessionUser: Hashable, Sendable, Codable {
    public let id: UserID
    public internal(set) var name: String
    /// `user_identity` from the token, if any.
    public let identity: String?
    /// What the token claimed; a host claim takes the host role back from a user who only
    /// inherited it. Nil in a client's copy of the session (`visible(to:)`): claims stay in
    /// the server's log and never reach a client, which sees roles.
    public let claim: RoleClaim?
    public internal(set) var isManager: Bool
    public internal(set) var location: Location
    public internal(set) var presence: Presence
    public let joinedAt: Instant
    /// What the user publishes now. A user joins publishing nothing and changes it with
    /// `mediaChanged` events, so the joining user's stored form never needs it (it is not in
    /// `CodingKeys`); it leaves with the user.
    public internal(set) var publishing: MediaKinds = []

    private enum CodingKeys: String, CodingKey { case id, name, identity, claim, isManager, location, presence, joinedAt }

    public init(
        id: UserID, name: String, identity: String?, claim: RoleClaim?, isManager: Bool = false,
        location: Location = .main, presence: Presence = .connected, joinedAt: Instant, publishing: MediaKinds = []
    ) {
        self.id = id
        self.name = name
        self.identity = identity
        self.claim = claim
        self.isManager = isManager
        self.location = location
        self.presence = presence
        self.joinedAt = joinedAt
        self.publishing = publishing
    }
}

public enum Presence: Hashable, Sendable {
    case connected
    /// The connection dropped; the seat is held until the deadline.
    case reconnecting(until: Instant)

    public var isConnected: Bool { self == .connected }
}
