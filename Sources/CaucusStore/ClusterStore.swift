import CaucusCore

/// What several nodes sharing one store ask of it beyond `SessionStore`: which live session a
/// name refers to, one session to rebuild, and which leases ran out. Only a store that several
/// processes can share implements it (PostgreSQL); SQLite serves one node.
public protocol ClusterStore: SessionStore {
    /// The live session of `app` whose name has the key `nameKey` (`SessionName.key`), if any.
    func liveSessionID(app: String, nameKey: String) async throws -> StoredSessionID?

    /// One live session to rebuild, as `liveSessions(replayDepth:)` gives each; nil if it
    /// ended or never began.
    func liveSession(_ id: StoredSessionID, replayDepth: Int) async throws -> StoredSession?

    /// Live sessions whose lease expired at `now`: their node stopped renewing (it died or was
    /// cut off), so another may take them over.
    func sessionsWithExpiredLeases(at now: Instant) async throws -> [StoredSessionID]

    /// The live sessions of `app`, each with its lease: what the control API lists on any node.
    func liveSessionListing(app: String) async throws -> [ListedSession]
}

/// A live session as the shared store lists it, with the node that serves it.
public struct ListedSession: Sendable, Hashable {
    public let id: StoredSessionID
    public let name: String
    public let createdAt: Instant
    /// The last seq its log holds.
    public let lastSeq: Int
    public let lease: SessionLease

    public init(id: StoredSessionID, name: String, createdAt: Instant, lastSeq: Int, lease: SessionLease) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.lastSeq = lastSeq
        self.lease = lease
    }
}
