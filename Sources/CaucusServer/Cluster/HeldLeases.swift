import CaucusCore
import CaucusStore

/// Until when this node may serve each session whose lease it holds, by its own clock. A lease
/// this node wrote (opening the session, taking it over, renewing it) runs out at the `until`
/// it wrote; from then on another node may take the session. This node gives the session up
/// `margin` before that — whether or not the store ever answers again — so that its clients
/// are closed (4007) before anyone else may serve them, even by a clock running a little
/// ahead of this one's.
actor HeldLeases {
    /// How long before its lease runs out a session is given up.
    let margin: Duration
    private var until: [StoredSessionID: Instant] = [:]

    init(margin: Duration) {
        self.margin = margin
    }

    /// A session this node opens: its lease is written with its first batch, until `until`.
    /// A session already held keeps what it has: its lease was written long ago and renewed
    /// since, and only what the store has should count.
    func opening(_ id: StoredSessionID, until: Instant) {
        if self.until[id] == nil { self.until[id] = until }
    }

    /// The store has the session's lease held by this node until `until` (it acquired or
    /// renewed it).
    func held(_ id: StoredSessionID, until: Instant) {
        self.until[id] = max(self.until[id] ?? until, until)
    }

    func forget(_ id: StoredSessionID) {
        until[id] = nil
    }

    /// When this node must stop serving the session; nil for a session it does not hold.
    func giveUpPoint(of id: StoredSessionID) -> Instant? {
        until[id].map { $0.adding(.zero - margin) }
    }

    /// The sessions this node must stop serving at `now`, forgotten here.
    func due(at now: Instant) -> [StoredSessionID] {
        let due = until.filter { now >= $0.value.adding(.zero - margin) }.map(\.key)
        for id in due { until[id] = nil }
        return due
    }
}
