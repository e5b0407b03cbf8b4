import CaucusCore
import CaucusServer
import Testing

/// The server's clock: a wait for a duration is a wait until a later reading of the same clock
/// (so a test that moves the clock moves every timer), rounded up to the millisecond (a timer
/// never fires early); the real clock's waits end when their task is cancelled.
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
        #expect(await Self.deadline(of: .microseconds(1_500)) == 1_002, "never early")
        #expect(await Self.deadline(of: .nanoseconds(1)) == 1_001)
        #expect(await Self.deadline(of: .zero) == 1_000)
    }

    @Test func theWallClocksWaitForThePastReturnsAtOnceAndACancelledOneThrows() async throws {
        try await ServerClock.wall.sleep(until: Instant(milliseconds: 0))
        let waiting = Task { try await ServerClock.wall.sleep(for: .seconds(3_600)) }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        let late = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await ServerClock.wall.sleep(until: Instant(milliseconds: 0))
        }
        await #expect(throws: CancellationError.self) { try await late.value }
    }
}
