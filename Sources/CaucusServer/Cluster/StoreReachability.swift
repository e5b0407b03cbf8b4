/// Whether this node reaches the shared store, as its own calls find: the store counts as
/// reachable while some call that began less than `horizon` ago was answered. The horizon is
/// the part of a lease a node may serve without a renewal (`HeldNodeLease`), so that a node
/// reports itself unreachable (`/healthz`, `/readyz`) as it gives its sessions up. Requests
/// that need the store wait for it no longer than a horizon, and fail at once (1010, try
/// another node) while it is known to be unreachable: no answer for a horizon, and the last
/// call failed — not merely a node that was idle or frozen and has not asked yet.
actor StoreReachability {
    let horizon: Duration
    private var lastAnswered: ContinuousClock.Instant
    private(set) var lastFailure: String?

    /// Reachable for a horizon from `start` (the store answered the node's start).
    init(horizon: Duration, since start: ContinuousClock.Instant = .now) {
        self.horizon = horizon
        self.lastAnswered = start
    }

    /// A call that began at `start` was answered.
    func answered(callStartedAt start: ContinuousClock.Instant) {
        if start > lastAnswered { lastAnswered = start }
        lastFailure = nil
    }

    /// A call went unanswered, or failed for a reason other than a refusal.
    func failed(_ reason: String) {
        lastFailure = reason
    }

    /// Until when the store counts as reachable without another answer.
    var reachableUntil: ContinuousClock.Instant { lastAnswered + horizon }

    var isReachable: Bool { ContinuousClock.now < reachableUntil }

    /// Unreachable, and the last call to end failed: a request need not try.
    var isKnownUnreachable: Bool { !isReachable && lastFailure != nil }
}
