import CaucusCore

/// A session's lease as stored beside its log, and the rules both stores apply to it. The
/// store never reads a clock: every rule takes `now` from the caller, so that nodes agree on
/// what expired only as far as their clocks do, and tests decide time.
public struct SessionLease: Sendable, Hashable {
    /// Who holds (or last held) it; nil while it was never taken.
    public let holder: NodeID?
    public let epoch: LeaseEpoch
    /// The lease is live before this instant and expired from it on.
    public let expiresAt: Instant?

    public init(holder: NodeID?, epoch: LeaseEpoch, expiresAt: Instant?) {
        self.holder = holder
        self.epoch = epoch
        self.expiresAt = expiresAt
    }

    public static let never = SessionLease(holder: nil, epoch: .unleased, expiresAt: nil)

    public func isLive(at now: Instant) -> Bool {
        guard holder != nil, let expiresAt else { return false }
        return now < expiresAt
    }

    /// The lease after `node` acquires it until `until`: refused (`leaseHeld`) while another
    /// node's lease is live. The holder re-acquiring its live lease keeps the epoch (it never
    /// stopped holding it); any other acquisition takes the next epoch, which fences every
    /// write of the previous holder.
    public func acquired(by node: NodeID, until: Instant, now: Instant, of session: StoredSessionID) throws(StoreError) -> SessionLease {
        if isLive(at: now) {
            guard holder == node else { throw StoreError.leaseHeld(session, by: self) }
            return SessionLease(holder: node, epoch: epoch, expiresAt: until)
        }
        return SessionLease(holder: node, epoch: epoch.next, expiresAt: until)
    }

    /// The lease after `node` takes it from `gone`, a holder known to have died (its
    /// connection to the shared store closed: `ClusterStore.isNodeGone`), although the lease
    /// has not expired: the next epoch, which fences anything of `gone` that was still on its
    /// way. A lease that another node holds now is acquired as by `acquired`.
    public func takenFromGone(_ gone: NodeID, by node: NodeID, until: Instant, now: Instant, of session: StoredSessionID) throws(StoreError) -> SessionLease {
        guard isLive(at: now), holder == gone, gone != node else { return try acquired(by: node, until: until, now: now, of: session) }
        return SessionLease(holder: node, epoch: epoch.next, expiresAt: until)
    }

    /// The lease after its holder extends it until `until`: only the holder, with the current
    /// epoch, before it expires. A lease that expired is acquired again instead (and may then
    /// have a new epoch, if another node took it meanwhile).
    public func renewed(by node: NodeID, epoch claimed: LeaseEpoch, until: Instant, now: Instant, of session: StoredSessionID) throws(StoreError) -> SessionLease {
        guard holder == node, claimed == epoch, isLive(at: now) else {
            throw StoreError.fenced(session, claimed: claimed, current: self)
        }
        return SessionLease(holder: node, epoch: epoch, expiresAt: until)
    }

    /// Refuses a write that carries `claimed` (nil: written without a lease) unless it is the
    /// current epoch. A write without a lease is allowed only while no lease was ever taken
    /// (one node, as before leases): once one exists, such a write could come from a node that
    /// never held it. Expiry alone does not refuse a write: until another node acquires the
    /// lease, nobody else has written, and the holder's epoch is still the current one.
    public func checkWrite(claimed: LeaseEpoch?, to session: StoredSessionID) throws(StoreError) {
        if (claimed ?? .unleased) != epoch { throw StoreError.fenced(session, claimed: claimed, current: self) }
    }
}
