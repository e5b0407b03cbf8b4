/// When an engine's periodic work (transport-cc feedback, simulcast layers ranked, downlinks
/// probed, speakers ranked) next falls due: every ``interval``, from the first time it is
/// started. Its instants lie on one grid, the multiples of the interval, so the engines of one
/// media loop fall due together and the loop wakes once for all of them, not once per session.
struct PeriodicSchedule: Sendable {
    let interval: Duration
    /// Nil until ``start(at:)``.
    private(set) var due: Duration?
    /// When the work last ran (``ran(at:)``); nil: never.
    private(set) var lastRun: Duration?

    init(interval: Duration) {
        // Whole nanoseconds, within a day: the grid's arithmetic stays inside 64 bits.
        precondition(interval >= .nanoseconds(1) && interval <= .seconds(86_400), "a periodic interval is from 1 ns to a day")
        self.interval = interval
    }

    /// Due at the next grid instant after `now`, unless it is running already.
    mutating func start(at now: Duration) {
        if due == nil { due = next(after: now) }
    }

    func isDue(at now: Duration) -> Bool {
        due.map { $0 <= now } ?? false
    }

    /// The work ran at `now`: due again at the next grid instant after it (one run for
    /// several intervals missed, not one per interval).
    mutating func ran(at now: Duration) {
        lastRun = now
        due = next(after: now)
    }

    /// The first multiple of ``interval`` strictly after `now`.
    func next(after now: Duration) -> Duration {
        let step = Self.nanoseconds(interval)
        let time = Self.nanoseconds(now)
        // Floor division, so a time before the clock's 0 lands on the grid too.
        let intervals = time >= 0 ? time / step : -((-time + step - 1) / step)
        return .nanoseconds((intervals + 1) * step)
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
