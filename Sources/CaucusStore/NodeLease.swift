import CaucusCore

/// A node's lease: one row per node in the shared store, renewed once per renewal period
/// whatever the number of sessions it serves. Every session the node owns (`SessionLease`)
/// is live exactly while this lease is, at the epoch the session names, so the store's idle
/// load grows with nodes, not sessions. The rules take `now` from the caller: the store reads
/// no clock.
public struct NodeLease: Sendable, Hashable {
    public let owner: NodeIncarnation
    /// Live before this instant, expired from it on.
    public let expiresAt: Instant

    public init(owner: NodeIncarnation, expiresAt: Instant) {
        self.owner = owner
        self.expiresAt = expiresAt
    }

    public var node: NodeID { owner.node }
    public var epoch: NodeEpoch { owner.epoch }

    /// The lease a starting run of `node` writes: the epoch after the previous run's (the
    /// first for a node never seen), so that the previous run's sessions are no longer live
    /// and a previous run still alive (frozen, cut off) is refused at its next renewal.
    public static func started(by node: NodeID, after previous: NodeLease?, until: Instant) -> NodeLease {
        NodeLease(owner: NodeIncarnation(node: node, epoch: previous?.epoch.next ?? .first), expiresAt: until)
    }

    public func isLive(at now: Instant) -> Bool { now < expiresAt }

    /// Whether this lease keeps sessions owned by `incarnation` live at `now`.
    public func keeps(_ incarnation: NodeIncarnation, at now: Instant) -> Bool {
        owner == incarnation && isLive(at: now)
    }

    /// The lease after its run extends it until `until`, even after it expired: a late
    /// renewal that no later run of the node overtook keeps every session still owned at this
    /// epoch (those another node took meanwhile name their new owner). Refused (`fenced`)
    /// when `claimed` is not the current epoch: the node started again since.
    public func renewed(epoch claimed: NodeEpoch, until: Instant) throws(StoreError) -> NodeLease {
        guard claimed == epoch else { throw StoreError.nodeFenced(node, claimed: claimed, current: self) }
        return NodeLease(owner: owner, expiresAt: until)
    }

    /// The lease after its run gives it up at `now` (a stopping node, its sessions saved):
    /// expired from now on, so that other nodes take the sessions over at once. A later run's
    /// lease is left as it is.
    public func released(epoch claimed: NodeEpoch, at now: Instant) -> NodeLease {
        guard claimed == epoch else { return self }
        return NodeLease(owner: owner, expiresAt: min(expiresAt, now))
    }
}
