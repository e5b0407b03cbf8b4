@testable import Caucus
import Testing

/// The reconnect schedule, driven directly: the time since the drop and the random number
/// are the test's.
@Suite struct ReconnectScheduleTests {
    /// The defaults: 250 ms doubling to 2 s, until a 30 s grace plus 5 s.
    static func schedule() -> ReconnectSchedule {
        ReconnectSchedule(delays: .milliseconds(250) ... .seconds(2), deadline: .seconds(35))
    }

    @Test func theFirstAttemptComesAtOnceWhateverTheJitter() {
        var schedule = Self.schedule()
        #expect(schedule.next(elapsed: .zero, random: 0.99) == .attempt(after: .zero))
    }

    @Test func laterAttemptsWaitFromTheFirstDelayDoublingUpToTheCap() {
        var schedule = Self.schedule()
        // random 0.5: no jitter.
        let delays = (0..<7).map { _ in schedule.next(elapsed: .seconds(1), random: 0.5) }
        #expect(
            delays == [0, 250, 500, 1000, 2000, 2000, 2000].map { .attempt(after: .milliseconds($0)) })
        #expect(schedule.attempts == 7)
    }

    @Test func jitterScalesADelayByAtMostAQuarterEitherWay() {
        var low = Self.schedule()
        var high = Self.schedule()
        for _ in 0..<3 {
            _ = low.next(elapsed: .zero, random: 0)
            _ = high.next(elapsed: .zero, random: 1)
        }
        // The fourth attempt's delay is 1 s before jitter.
        #expect(low.next(elapsed: .zero, random: 0) == .attempt(after: .milliseconds(750)))
        #expect(high.next(elapsed: .zero, random: 1) == .attempt(after: .milliseconds(1250)))
    }

    @Test func attemptsStopOnceTheDeadlineHasPassed() {
        var schedule = Self.schedule()
        #expect(schedule.next(elapsed: .seconds(35) - .milliseconds(1), random: 0.5) != .giveUp)
        #expect(schedule.next(elapsed: .seconds(35), random: 0.5) == .giveUp)
        #expect(schedule.next(elapsed: .seconds(60), random: 0.5) == .giveUp)
    }

    @Test func theLastWaitEndsAtTheDeadlineNotAfterIt() {
        var schedule = Self.schedule()
        for _ in 0..<10 { _ = schedule.next(elapsed: .zero, random: 0.5) }
        #expect(schedule.next(elapsed: .seconds(35) - .milliseconds(300), random: 1) == .attempt(after: .milliseconds(300)))
    }

    /// Whatever the jitter, attempts keep coming within the grace: the server is reached soon
    /// after it returns, and many times before the seat is given up.
    @Test(arguments: [0.0, 0.5, 1.0], [Duration.zero, .seconds(5)])
    func attemptsComeOftenUntilPastTheGrace(random: Double, eachAttemptTakes attempt: Duration) {
        var schedule = Self.schedule()
        var now = Duration.zero
        var starts: [Duration] = []
        while case .attempt(let delay) = schedule.next(elapsed: now, random: random) {
            now += delay
            starts.append(now)
            now += attempt
        }
        let grace = Duration.seconds(30)
        let gaps = zip(starts, starts.dropFirst()).map { $1 - $0 - attempt }
        #expect(gaps.allSatisfy { $0 <= .milliseconds(2500) }, "never more than the capped delay, jittered, between attempts")
        #expect(starts.filter { $0 < grace }.count >= (attempt == .zero ? 12 : 4))
        #expect(starts.last.map { $0 >= grace } == true, "still trying once the grace is over")
        #expect(starts.allSatisfy { $0 <= .seconds(35) }, "and not past the deadline")
    }
}
