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

    public init(_ user: SessionUser, role: Role) {
        id = user.id
        name = user.name
        self.role = role
        location = user.location
        presence = user.presence
        identity = user.identity
        joinedAt = user.joinedAt
    }

    public init(
        id: UserID, name: String, role: Role, location: Location, presence: Presence, identity: String?, joinedAt: Instant
    ) {
        self.id = id
        self.name = name
        self.role = role
        self.location = location
        self.presence = presence
        self.identity = identity
        self.joinedAt = joinedAt
    }

    /// The seat as a client's copy of the session holds it: no claim (a client never learns
    /// one), a manager flag from the role.
    public var seat: SessionUser {
        SessionUser(
            id: id, name: name, identity: identity, claim: nil, isManager: role == .manager, location: location,
            presence: presence, joinedAt: joinedAt)
    }
}
