/// Whether this node reaches the shared store, as its own calls find: the store is reachable
/// while some call that began less than `horizon` ago was answered. The horizon is the part
/// of a lease a node may serve without a renewal (`HeldLeases`), so that a node reports itself
/// unreachable (`/healthz`, `/readyz`) when it gives its sessions up, and stops waiting for the
/// store when its waits could no longer do any good: until reachable again, requests that
/// need the store fail at once, without waiting (1010, try another node), and a call that
/// begins while reachable waits no longer than the horizon's end.
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
}
