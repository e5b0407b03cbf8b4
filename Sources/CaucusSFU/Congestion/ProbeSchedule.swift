import CaucusMedia

/// When to find out whether a subscriber's link can carry more, and with how much (sans-IO:
/// time, the estimate and what a better layer needs in; probe clusters and confirmed rates out).
///
/// The estimate (``DownlinkEstimator``) only rises above what a link is sent by probes, so a
/// subscriber held to a low simulcast layer would otherwise stay there for good. When a better
/// layer needs more than the estimate, and the link has been calm for ``calm``, the router sends
/// a ``ProbeCluster``: ``clusterDuration`` worth of the better layer's rate (and a tenth more),
/// at least ``smallestCluster`` bytes, back to back — repeats of packets the subscriber already
/// has, which it discards after reporting them. A slow link queues a few kilobytes for a moment
/// (tens of milliseconds of picture delayed, never a second of it).
///
/// A cluster that arrives at its level is followed at once by a second; only when both do is
/// the rate confirmed (the slower of the two, at most the level) and the estimate raised — one
/// cluster can arrive bunched by a stall on its way and look faster than the link is, which
/// would hand a slow link a layer it cannot carry. A cluster that does not arrive at its level
/// (or whose outcome is not known within ``outcomeTimeout``) is followed by the next after
/// ``shortestBackoff``, twice as long each time up to ``longestBackoff`` — so a link whose cap
/// is lifted is found within that.
public struct ProbeSchedule: Sendable {
    public static let clusterDuration = Duration.milliseconds(40)
    public static let smallestCluster = 2_000
    public static let calm = Duration.seconds(1)
    public static let outcomeTimeout = Duration.seconds(1)
    public static let shortestBackoff = Duration.seconds(2)
    public static let longestBackoff = Duration.seconds(6)
    static let confirmations = 2

    /// What to do now: a cluster to send, and a rate probes confirmed (raise the estimate to it).
    public struct Step: Sendable {
        public var send: (cluster: ProbeCluster, bytes: Int)?
        public var confirmed: Int?
    }

    /// The probe waiting for its outcome, and when it was sent.
    private var pending: (cluster: ProbeCluster, sentAt: Duration)?
    /// The rates the clusters of the current confirmation carried.
    private var carried: [Int] = []
    private var next: Duration = .zero
    /// The wait after the last probe that found no room (zero: none did since one that found some).
    private var backoff = Duration.zero
    private var nextID = 1

    public init() {}

    public var isWaiting: Bool { pending != nil }

    /// What to do at `now`, when a better layer needs `target` bits per second of a link whose
    /// estimate is `estimator`'s (which also holds the outcomes of the clusters sent).
    public mutating func step(toReach target: Int?, estimator: DownlinkEstimator, at now: Duration) -> Step {
        var step = Step()
        if let (cluster, sentAt) = pending {
            switch estimator.outcome(ofProbe: cluster.id) {
            case .carried(let rate)?:
                carried.append(min(rate, cluster.level))
                if carried.count >= Self.confirmations {
                    step.confirmed = carried.min()
                    carried = []
                }
                backoff = .zero
                next = now
            case .notCarried?:
                failed(at: now)
            case nil:
                guard now - sentAt >= Self.outcomeTimeout else { return step }
                failed(at: now)
            }
            pending = nil
        }
        let estimate = max(estimator.estimate, step.confirmed ?? 0)
        // A confirmation in progress goes on without waiting for calm: its own first cluster
        // may have made the moment's queue.
        guard let target, target > estimate, now >= next, !carried.isEmpty || estimator.isCalm(for: Self.calm, at: now) else { return step }
        let level = target + target / 10
        let cluster = ProbeCluster(id: nextID, level: level)
        nextID += 1
        pending = (cluster, now)
        let bytes = Int(DownlinkEstimator.microseconds(Self.clusterDuration)) * level / 8_000_000
        step.send = (cluster, max(bytes, Self.smallestCluster))
        return step
    }

    private mutating func failed(at now: Duration) {
        carried = []
        backoff = backoff == .zero ? Self.shortestBackoff : min(backoff * 2, Self.longestBackoff)
        next = now + backoff
    }
}
