/// When to try reconnecting again, and when to stop: the first attempt at once, then after
/// `delays.lowerBound`, doubling up to `delays.upperBound`, each with jitter, until the
/// server has surely given the seat up (its reconnect grace, plus a margin for the time the
/// server took to notice the drop). Short delays matter more than few attempts: the server
/// holds the seat only for the grace, and every attempt that misses the server's return is
/// time the seat is at risk.
///
/// Pure: the caller says how long it has been since the drop and supplies the random number,
/// so tests drive it directly.
struct ReconnectSchedule: Sendable {
    enum Step: Equatable, Sendable {
        /// Wait this long, then make an attempt.
        case attempt(after: Duration)
        /// The grace is over: a resume can only be refused.
        case giveUp
    }

    /// From the first retry's delay to the longest.
    let delays: ClosedRange<Duration>
    /// How long after the drop attempts stop: the grace and its margin, moved later while a
    /// server answers that it cannot decide yet (`serverCannotDecideYet`).
    private(set) var deadline: Duration
    /// Each delay is scaled by a factor in 1 ± `jitter`, so that clients dropped together (a
    /// server restart) do not all return at the same instant.
    let jitter: Double
    /// Attempts handed out so far.
    private(set) var attempts = 0

    init(delays: ClosedRange<Duration>, deadline: Duration, jitter: Double = 0.25) {
        self.delays = delays
        self.deadline = deadline
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The furthest after the drop that answers of servers waiting for their store move the
    /// deadline: an outage longer than this costs the seat.
    static let storeOutageLimit = Duration.seconds(300)

    /// A server answered the resume, but could not decide it (1010: it cannot reach its
    /// store). It lives, and the seat with it: the server's grace runs only while a node
    /// serves the session, so attempts go on for a whole `window` (the grace and its margin)
    /// from now, up to `storeOutageLimit` after the drop. A 45 s outage of the shared store
    /// used to outlast every client's 35 s budget though every seat survived it.
    mutating func serverCannotDecideYet(elapsed: Duration, window: Duration) {
        deadline = max(deadline, min(elapsed + window, Self.storeOutageLimit))
    }

    /// The next step, `elapsed` after the drop; `random` is uniform in 0..<1.
    mutating func next(elapsed: Duration, random: Double) -> Step {
        guard elapsed < deadline else { return .giveUp }
        defer { attempts += 1 }
        guard attempts > 0 else { return .attempt(after: .zero) }
        let doubled = delays.lowerBound * (1 << min(attempts - 1, 16))
        let capped = min(doubled, delays.upperBound)
        let jittered = capped * (1 - jitter + 2 * jitter * min(max(random, 0), 1))
        // The last attempt lands on the deadline rather than after it.
        return .attempt(after: min(jittered, deadline - elapsed))
    }
}
