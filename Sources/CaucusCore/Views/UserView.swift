/// A user as every client sees it, in events and in snapshots alike: its role, never its
/// claim.
public struct UserView: Sendable, Equatable, Codable {
    public let id: UserID
    public let name: String
    public let role: Role
    public let location: Location
    public let presence: Presence
    public let identity: String?
    public let joinedAt: Instant
    /// What the user publishes; on the wire only when it publishes something.
    public let publishing: MediaKinds

    public init(_ user: SessionUser, role: Role) {
        id = user.id
        name = user.name
        self.role = role
        location = user.location
        presence = user.presence
        identity = user.identity
        joinedAt = user.joinedAt
        publishing = user.publishing
    }

    public init(
        id: UserID, name: String, role: Role, location: Location, presence: Presence, identity: String?, joinedAt: Instant,
        publishing: MediaKinds = []
    ) {
        self.id = id
        self.name = name
        self.role = role
        self.location = location
        self.presence = presence
        self.identity = identity
        self.joinedAt = joinedAt
        self.publishing = publishing
    }

    /// The seat as a client's copy of the session holds it: no claim (a client never learns
    /// one), a manager flag from the role.
    public var seat: SessionUser {
        SessionUser(
            id: id, name: name, identity: identity, claim: nil, isManager: role == .manager, location: location,
            presence: presence, joinedAt: joinedAt, publishing: publishing)
    }

    private enum CodingKeys: String, CodingKey { case id, name, role, location, presence, identity, joinedAt, publishing }

    /// Members in declaration order; `identity` and `publishing` only when there is one (a
    /// client from before media reads every user it knows).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(role, forKey: .role)
        try c.encode(location, forKey: .location)
        try c.encode(presence, forKey: .presence)
        try c.encodeIfPresent(identity, forKey: .identity)
        try c.encode(joinedAt, forKey: .joinedAt)
        if !publishing.isEmpty { try c.encode(publishing, forKey: .publishing) }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try c.decode(UserID.self, forKey: .id), name: try c.decode(String.self, forKey: .name),
            role: try c.decode(Role.self, forKey: .role), location: try c.decode(Location.self, forKey: .location),
            presence: try c.decode(Presence.self, forKey: .presence), identity: try c.decodeIfPresent(String.self, forKey: .identity),
            joinedAt: try c.decode(Instant.self, forKey: .joinedAt),
            publishing: try c.decodeIfPresent(MediaKinds.self, forKey: .publishing) ?? [])
    }
}
