import CaucusCore

/// What several nodes sharing one store ask of it beyond `SessionStore`: which live session a
/// name refers to, one session to rebuild, and which leases ran out. Only a store that several
/// processes can share implements it (PostgreSQL); SQLite serves one node.
public protocol ClusterStore: SessionStore {
    /// The live session of `app` whose name has the key `nameKey` (`SessionName.key`), if any.
    func liveSessionID(app: String, nameKey: String) async throws -> StoredSessionID?

    /// How the live session of `app` named by `nameKey` began (its first event), if one is
    /// live: a node asks which class (`sessionKey`) a session served elsewhere runs as.
    func liveSessionStart(app: String, nameKey: String) async throws -> SessionStarted?

    /// One live session to rebuild, as `liveSessions(replayDepth:)` gives each; nil if it
    /// ended or never began.
    func liveSession(_ id: StoredSessionID, replayDepth: Int) async throws -> StoredSession?

    /// Live leased sessions whose lease is not live at `now`: their owner's node lease expired
    /// (it died or was cut off) or is a later run's (it restarted), so another may take them
    /// over.
    func sessionsWithExpiredLeases(at now: Instant) async throws -> [StoredSessionID]

    /// The live sessions of `app`, each with its lease: what the control API lists on any node.
    func liveSessionListing(app: String) async throws -> [ListedSession]

    /// Holds `node`'s liveness lock on a connection of its own, which the store holds while
    /// the node's process lives: when the process dies, its connections close and the lock is
    /// free at once (`isNodeGone`). Returns when that connection is lost; throws if another
    /// process holds the lock (the node's previous run, not yet seen to be gone).
    func holdNodeLock(for node: NodeID) async throws

    /// Whether `node` is gone: no process holds its liveness lock. A node that is alive but
    /// frozen, or cut off behind a silent link, still holds it; its leases expire instead.
    func isNodeGone(_ node: NodeID) async throws -> Bool

    /// Live sessions whose lease is live but whose holder (another node than `node`) is gone:
    /// they may be taken over at once (`acquireLease(of:for:now:replacingGone:)`).
    func sessionsOfGoneNodes(otherThan node: NodeID, at now: Instant) async throws -> [StoredSessionID]

    /// Acquires the lease as `acquireLease` does, and also, at the next epoch, a live lease
    /// whose holder is `gone` and is still gone as the lease is taken
    /// (`SessionLease.takenFromGone`).
    func acquireLease(of session: StoredSessionID, for owner: NodeIncarnation, now: Instant, replacingGone gone: NodeID) async throws -> LeaseEpoch

    /// Records `fingerprint` as the cluster's server key when none is recorded, or when no
    /// other node than `node` has a live lease at `now` (the whole cluster restarted with a
    /// new key); otherwise says which live nodes run with the recorded one.
    func agreeOnServerKey(_ fingerprint: String, node: NodeID, at now: Instant) async throws -> ServerKeyAgreement

    /// The store's own clock, now: what every node's lease times are compared against.
    func storeClock() async throws -> Instant
}

/// Whether a starting node's server key is the cluster's (`ClusterStore.agreeOnServerKey`).
public enum ServerKeyAgreement: Sendable, Hashable {
    /// The recorded key is this one (recorded now, if there was none).
    case agreed
    /// Another key was recorded, but no other node runs: this key replaces it.
    case replaced(previous: String)
    /// Another key is recorded, and these nodes run with it.
    case differs(recorded: String, liveNodes: [NodeID])
}

/// A live session as the shared store lists it, with the node that serves it.
public struct ListedSession: Sendable, Hashable {
    public let id: StoredSessionID
    public let name: String
    public let createdAt: Instant
    /// The last seq its log holds.
    public let lastSeq: Int
    public let lease: SessionLeaseState

    public init(id: StoredSessionID, name: String, createdAt: Instant, lastSeq: Int, lease: SessionLeaseState) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.lastSeq = lastSeq
        self.lease = lease
    }
}
