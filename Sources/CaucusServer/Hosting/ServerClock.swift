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
    private let wait: @Sendable (Instant) async throws -> Void

    /// A clock that reads `now` and whose waits end by `sleepUntil` (which throws
    /// `CancellationError` when its task is cancelled, as `Task.sleep` does).
    public init(now: @escaping @Sendable () -> Instant, sleepUntil: @escaping @Sendable (Instant) async throws -> Void) {
        read = now
        wait = sleepUntil
    }

    /// The real time of day, and real waits.
    public static let wall = ServerClock(now: Instant.wallClock) { deadline in
        let delay = deadline.milliseconds - Instant.wallClock().milliseconds
        guard delay > 0 else { return try Task.checkCancellation() }
        try await Task.sleep(for: .milliseconds(delay))
    }

    /// Now, on this clock: `clock()`.
    public func callAsFunction() -> Instant { read() }

    /// Returns once this clock reads `deadline` or later; throws if the task is cancelled first.
    public func sleep(until deadline: Instant) async throws {
        try await wait(deadline)
    }

    /// The same, `duration` from now (rounded up to the clock's millisecond).
    public func sleep(for duration: Duration) async throws {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        try await sleep(until: Instant(milliseconds: read().milliseconds &+ milliseconds))
    }
}
