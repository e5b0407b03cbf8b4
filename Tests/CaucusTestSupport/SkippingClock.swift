import CaucusCore
import CaucusServer
import NIOConcurrencyHelpers

/// A server clock for tests that runs with real time and can be moved forward by hand: a
/// breakout of ten minutes ends as soon as the test has moved the clock ten minutes on, while
/// everything else (the roster window, a request's answer) takes the time it takes.
public final class SkippingClock: Sendable {
    private let skipped = NIOLockedValueBox<Int64>(0)

    public init() {}

    /// Now: the real time of day plus every skip so far.
    public func now() -> Instant {
        Instant(milliseconds: Instant.wallClock().milliseconds + skipped.withLockedValue { $0 })
    }

    /// Moves the clock forward: timers that fall due by then fire some 10 ms later (the time a
    /// waiting timer takes to look at the clock again).
    public func skip(_ duration: Duration) {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        precondition(milliseconds >= 0, "a clock moves forward only")
        skipped.withLockedValue { $0 += milliseconds }
    }

    /// Moves the clock forward until it reads `instant` (nothing if it already does).
    public func skip(to instant: Instant) {
        skipped.withLockedValue { skipped in
            let now = Instant.wallClock().milliseconds + skipped
            skipped += max(0, instant.milliseconds - now)
        }
    }

    /// The clock as a server takes it.
    public var serverClock: ServerClock {
        ServerClock(now: { [self] in now() }) { [self] deadline in
            // A wait wakes at least every 10 ms to see whether a skip has brought its deadline;
            // a short wait (a 5 ms roster window) sleeps just its own length.
            while true {
                let remaining = deadline.milliseconds - now().milliseconds
                guard remaining > 0 else { return try Task.checkCancellation() }
                try await Task.sleep(for: .milliseconds(min(remaining, 10)))
            }
        }
    }
}
