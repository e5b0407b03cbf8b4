/// When to find out whether a subscriber's link can carry more (sans-IO: time and rates in,
/// how many bytes to probe with out).
///
/// The estimate (``DownlinkEstimator``) only rises above what a link is sent, so a subscriber
/// held to a low simulcast layer would stay there for good. When a better layer needs more than
/// the estimate, and the link has been calm for ``calm``, the router sends extra packets for
/// ``duration`` — repeats of packets the subscriber already has, which it discards — at the rate
/// the better layer needs (and a tenth more). A link that carried them without overuse has its
/// estimate raised by the feedback, and the layer follows; a link that could not waits before
/// the next probe, twice as long each time up to ``longestBackoff`` (so a link whose cap is
/// lifted is found within that).
public struct ProbeSchedule: Sendable {
    public static let duration = Duration.milliseconds(500)
    public static let calm = Duration.seconds(1)
    public static let shortestBackoff = Duration.seconds(2)
    public static let longestBackoff = Duration.seconds(8)

    private var active: (until: Duration, bitsPerSecond: Int, target: Int)?
    private var next: Duration = .zero
    private var backoff = Self.shortestBackoff

    public init() {}

    public var isProbing: Bool { active != nil }

    /// The extra bytes to send in the `interval` that ends at `now`, to reach `target` bits per
    /// second on a link sending `sending` with an estimate of `estimator`'s; 0 when no probe
    /// is due. `target` nil: nothing better to reach.
    public mutating func bytes(
        toReach target: Int?, sending: Int, estimator: DownlinkEstimator, interval: Duration, at now: Duration
    ) -> Int {
        if let probe = active {
            guard now < probe.until else {
                active = nil
                let reached = estimator.estimate >= probe.target
                backoff = reached ? Self.shortestBackoff : min(backoff * 2, Self.longestBackoff)
                next = now + backoff
                return 0
            }
            return Self.bytes(at: probe.bitsPerSecond, for: interval)
        }
        guard let target, target > estimator.estimate, now >= next, estimator.isCalm(for: Self.calm, at: now) else { return 0 }
        let wanted = target + target / 10
        let extra = wanted - sending
        guard extra > 0 else { return 0 }
        active = (now + Self.duration, extra, target)
        return Self.bytes(at: extra, for: interval)
    }

    /// A probe that found overuse ends at once.
    public mutating func overused(at now: Duration) {
        guard active != nil else { return }
        active = nil
        backoff = min(backoff * 2, Self.longestBackoff)
        next = now + backoff
    }

    static func bytes(at bitsPerSecond: Int, for interval: Duration) -> Int {
        Int(DownlinkEstimator.microseconds(interval)) * bitsPerSecond / 8_000_000
    }
}
