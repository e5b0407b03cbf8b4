import CaucusCore

/// The server's time of day and the waits of its timers, injected as one: what a session's
/// actor reads as "now" (join times, a breakout's end) and what its timers wait on (a timer
/// warning, a countdown, a seat held, the roster window) come from the same clock. A test can
/// then run a ten-minute breakout by moving the clock forward instead of waiting for it.
///
/// Waits for I/O (a store call's deadline, a socket's) stay on real time: they bound what the
/// network and the database do, which no clock of ours moves.
public struct ServerClock: Sendable {
    private let read: @Sendable () -> Instant
    private let waitUntil: @Sendable (Instant) async throws -> Void
    private let waitFor: (@Sendable (Duration) async throws -> Void)?

    /// A clock that reads `now` and whose waits end by `sleepUntil`, which returns once `now`
    /// reads the deadline or later (and throws `CancellationError` when its task is cancelled,
    /// as `Task.sleep` does). A wait for a duration is a wait until that far from `now`.
    public init(now: @escaping @Sendable () -> Instant, sleepUntil: @escaping @Sendable (Instant) async throws -> Void) {
        read = now
        waitUntil = sleepUntil
        waitFor = nil
    }

    private init(
        now: @escaping @Sendable () -> Instant, sleepUntil: @escaping @Sendable (Instant) async throws -> Void,
        sleepFor: @escaping @Sendable (Duration) async throws -> Void
    ) {
        read = now
        waitUntil = sleepUntil
        waitFor = sleepFor
    }

    /// The real time of day, and real waits. A wait until an instant looks at the clock again
    /// when it wakes (the time of day can be set back meanwhile); a wait for a duration is
    /// `Task.sleep`'s, to the nanosecond (a 5 ms roster window lasts 5 ms, not 4 to 5).
    public static let wall = ServerClock(
        now: Instant.wallClock,
        sleepUntil: { deadline in
            while true {
                let delay = deadline.milliseconds - Instant.wallClock().milliseconds
                guard delay > 0 else { return try Task.checkCancellation() }
                try await Task.sleep(for: .milliseconds(delay))
            }
        },
        sleepFor: { duration in
            guard duration > .zero else { return try Task.checkCancellation() }
            try await Task.sleep(for: duration)
        })

    /// Now, on this clock: `clock()`.
    public func callAsFunction() -> Instant { read() }

    /// Returns once this clock reads `deadline` or later; throws if the task is cancelled first.
    public func sleep(until deadline: Instant) async throws {
        try await waitUntil(deadline)
    }

    /// Returns once `duration` has passed on this clock: on a clock of its own, once it reads
    /// that far from now, rounded up to its millisecond (never before).
    public func sleep(for duration: Duration) async throws {
        if let waitFor { return try await waitFor(duration) }
        try await sleep(until: Self.deadline(after: duration, from: read()))
    }

    /// `duration` after `now`, rounded up to the millisecond; at most the largest instant.
    static func deadline(after duration: Duration, from now: Instant) -> Instant {
        guard duration > .zero else { return now }
        let (seconds, attoseconds) = duration.components
        let (whole, overflowed) = seconds.multipliedReportingOverflow(by: 1000)
        let (milliseconds, roundedPast) = whole.addingReportingOverflow((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
        let (sum, addedPast) = now.milliseconds.addingReportingOverflow(milliseconds)
        return Instant(milliseconds: overflowed || roundedPast || addedPast ? .max : sum)
    }
}
