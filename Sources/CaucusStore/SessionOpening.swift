import CaucusCore

/// What the first append of a session records about it: its row in the sessions table.
public struct SessionOpening: Sendable, Hashable {
    public let app: String
    /// The name as the first joiner gave it (history shows the one the session started with).
    public let name: String
    public let createdAt: Instant
    /// On several nodes, the opener takes the session's lease with the row itself (epoch 1),
    /// so that no moment exists in which another node could see the session unleased and
    /// take it. Nil on one node: the session is never leased.
    public let lease: OpeningLease?

    public init(app: String, name: String, createdAt: Instant, lease: OpeningLease? = nil) {
        self.app = app
        self.name = name
        self.createdAt = createdAt
        self.lease = lease
    }

    /// The form the database keeps one live session per app of.
    public var nameKey: String { SessionName.key(name) }

    /// The lease the row is written with.
    public var initialLease: SessionLease {
        guard let lease else { return .never }
        return SessionLease(owner: lease.owner, epoch: LeaseEpoch.unleased.next)
    }
}

/// The lease a session's opener holds from its first write: live while the opener's node
/// lease is.
public struct OpeningLease: Sendable, Hashable {
    public let owner: NodeIncarnation

    public init(owner: NodeIncarnation) {
        self.owner = owner
    }
}
