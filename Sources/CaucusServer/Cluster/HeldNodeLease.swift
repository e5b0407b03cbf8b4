import CaucusCore
import CaucusStore

/// This node's run (`NodeIncarnation`, taken at start) and until when, by its own clock, its
/// node lease keeps its sessions. The lease this node wrote (starting, renewing) runs out at
/// the `until` it wrote; from then on another node may take every session it owns. This node
/// gives them up `margin` before that — whether or not the store ever answers again — so
/// that its clients are closed (4007) before anyone else may serve them, even by a clock
/// running a little ahead of this one's.
actor HeldNodeLease {
    /// How long before its lease runs out the node gives its sessions up.
    let margin: Duration
    /// Nil until the node's run has started (`started`).
    private(set) var incarnation: NodeIncarnation?
    private var until: Instant?

    init(margin: Duration) {
        self.margin = margin
    }

    /// The store has started this run's lease.
    func started(_ lease: NodeLease) {
        incarnation = lease.owner
        until = lease.expiresAt
    }

    /// The store has this run's lease until `until` (it renewed it).
    func renewed(until: Instant) {
        self.until = max(self.until ?? until, until)
    }

    /// This run serves nothing from now on: a later run of the node took its lease, or it stops.
    func stopServing() {
        until = nil
    }

    /// When this node must stop serving its sessions; nil before its run started.
    var giveUpPoint: Instant? {
        until.map { $0.adding(.zero - margin) }
    }

    /// Whether the node must not serve its sessions at `now` (and must take no new ones): its
    /// lease runs out unrenewed, or its run has not started.
    func isDue(at now: Instant) -> Bool {
        guard let giveUpPoint else { return true }
        return now >= giveUpPoint
    }

    /// This run, while it may serve sessions at `now`; nil otherwise.
    func serving(at now: Instant) -> NodeIncarnation? {
        isDue(at: now) ? nil : incarnation
    }
}
