import CaucusCore
import CaucusServer
import Testing

/// The server's clock: a wait for a duration on a clock of its own is a wait until a later
/// reading of the same clock (so a test that moves the clock moves every timer), rounded up to
/// the millisecond; the real clock's waits last at least what they were asked, and end when
/// their task is cancelled.
@Suite struct ServerClockTests {
    /// A clock that reads 1,000 ms and, asked to wait, throws where it was asked to wait until.
    struct AskedUntil: Error { let deadline: Instant }
    static let stopped = ServerClock(now: { Instant(milliseconds: 1_000) }) { deadline in throw AskedUntil(deadline: deadline) }

    static func deadline(of duration: Duration) async -> Int64? {
        do {
            try await stopped.sleep(for: duration)
            return nil
        } catch let asked as AskedUntil {
            return asked.deadline.milliseconds
        } catch {
            return nil
        }
    }

    @Test func aWaitForADurationEndsThatFarOnTheSameClockRoundedUp() async {
        #expect(Self.stopped().milliseconds == 1_000)
        #expect(await Self.deadline(of: .seconds(30)) == 31_000)
        #expect(await Self.deadline(of: .milliseconds(5)) == 1_005)
        #expect(await Self.deadline(of: .microseconds(1_500)) == 1_002, "never before")
        #expect(await Self.deadline(of: .nanoseconds(1)) == 1_001)
        #expect(await Self.deadline(of: .zero) == 1_000)
        #expect(await Self.deadline(of: .milliseconds(-5)) == 1_000)
        #expect(await Self.deadline(of: .seconds(Int64.max / 10)) == Int64.max, "too far: the last instant, not a wrap into the past")
    }

    @Test func theWallClocksWaitsLastAtLeastWhatTheyWereAsked() async throws {
        let started = ContinuousClock.now
        try await ServerClock.wall.sleep(for: .milliseconds(30))
        #expect(ContinuousClock.now - started >= .milliseconds(30))
        let deadline = Instant(milliseconds: Instant.wallClock().milliseconds + 30)
        try await ServerClock.wall.sleep(until: deadline)
        #expect(Instant.wallClock() >= deadline, "the clock reads the deadline once the wait ends")
    }

    @Test func theWallClocksWaitsEndWhenCancelled() async throws {
        let waiting = Task { try await ServerClock.wall.sleep(for: .seconds(3_600)) }
        let until = Task { try await ServerClock.wall.sleep(until: Instant(milliseconds: Instant.wallClock().milliseconds + 3_600_000)) }
        waiting.cancel()
        until.cancel()
        try await within("the cancelled waits") {
            await #expect(throws: CancellationError.self) { try await waiting.value }
            await #expect(throws: CancellationError.self) { try await until.value }
        }
        let late = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await ServerClock.wall.sleep(until: Instant(milliseconds: 0))
        }
        await #expect(throws: CancellationError.self) { try await late.value }
    }
}
