import CaucusCore

/// A session's lease as stored beside its log: the run of a node that owns it, and the epoch
/// its writes carry. It has no expiry of its own: it is live exactly while its owner's node
/// lease (`NodeLease`) is live at the owner's epoch, so that one renewal per node keeps all
/// of the node's sessions. The rules are shared by both stores and take `now` and the owner's
/// node lease from the caller.
public struct SessionLease: Sendable, Hashable {
    /// Who holds (or last held) it; nil while it was never taken.
    public let owner: NodeIncarnation?
    /// Fences writes: every change of owner takes the next one.
    public let epoch: LeaseEpoch

    public init(owner: NodeIncarnation?, epoch: LeaseEpoch) {
        self.owner = owner
        self.epoch = epoch
    }

    public static let never = SessionLease(owner: nil, epoch: .unleased)

    /// The node that holds (or last held) it.
    public var holder: NodeID? { owner?.node }

    /// Whether the lease is live at `now`, `ownerLease` being the stored lease of its owner's
    /// node (nil: none): live while that lease is, at the epoch the session names.
    public func isLive(ownerLease: NodeLease?, at now: Instant) -> Bool {
        guard let owner, let ownerLease else { return false }
        return ownerLease.keeps(owner, at: now)
    }

    /// The lease after `taker` acquires it: refused (`leaseHeld`) while another run's lease is
    /// live. The owner re-acquiring its live lease keeps the epoch (it never stopped holding
    /// it); any other acquisition takes the next epoch, which fences every write of the
    /// previous owner.
    public func acquired(by taker: NodeIncarnation, ownerLease: NodeLease?, now: Instant, of session: StoredSessionID) throws(StoreError) -> SessionLease {
        if isLive(ownerLease: ownerLease, at: now) {
            guard owner == taker else { throw StoreError.leaseHeld(session, by: self, until: ownerLease?.expiresAt) }
            return self
        }
        return SessionLease(owner: taker, epoch: epoch.next)
    }

    /// The lease after `taker` takes it from its owner, known to have died (its connection to
    /// the shared store closed: `ClusterStore.isNodeGone`) although its node lease has not
    /// expired: the next epoch, which fences anything of the dead owner still on its way. A
    /// lease of the taker's own node, or not live, is acquired as by `acquired`.
    public func takenFromGone(by taker: NodeIncarnation, ownerLease: NodeLease?, now: Instant, of session: StoredSessionID) throws(StoreError) -> SessionLease {
        guard isLive(ownerLease: ownerLease, at: now), let owner, owner.node != taker.node else {
            return try acquired(by: taker, ownerLease: ownerLease, now: now, of: session)
        }
        return SessionLease(owner: taker, epoch: epoch.next)
    }

    /// Refuses a write that carries `claimed` (nil: written without a lease) unless it is the
    /// current epoch. A write without a lease is allowed only while no lease was ever taken
    /// (one node, as before leases): once one exists, such a write could come from a node that
    /// never held it. Expiry alone does not refuse a write: until another node acquires the
    /// lease, nobody else has written, and the owner's epoch is still the current one.
    public func checkWrite(claimed: LeaseEpoch?, to session: StoredSessionID) throws(StoreError) {
        if (claimed ?? .unleased) != epoch { throw StoreError.fenced(session, claimed: claimed, current: self) }
    }
}

/// A session's lease as a node reads it, with its owner's node lease: what deciding whether
/// the session is live (and where) needs.
public struct SessionLeaseState: Sendable, Hashable {
    public let lease: SessionLease
    /// The stored lease of the owner's node, whatever its epoch; nil if none.
    public let ownerLease: NodeLease?

    public init(lease: SessionLease, ownerLease: NodeLease?) {
        self.lease = lease
        self.ownerLease = ownerLease
    }

    public var owner: NodeIncarnation? { lease.owner }
    public var holder: NodeID? { lease.holder }
    public var epoch: LeaseEpoch { lease.epoch }

    public func isLive(at now: Instant) -> Bool { lease.isLive(ownerLease: ownerLease, at: now) }

    /// When the lease runs out unless its owner renews, if it is its owner's current run's.
    public var expiresAt: Instant? {
        guard let owner, let ownerLease, ownerLease.owner == owner else { return nil }
        return ownerLease.expiresAt
    }
}
