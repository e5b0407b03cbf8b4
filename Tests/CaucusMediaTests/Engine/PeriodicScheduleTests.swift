import Testing

@testable import CaucusSFU

/// The periodic work's schedule: not due before it starts, then due at the multiples of its
/// interval, whatever time it started or ran at (a clock's 0 is arbitrary, and may be far back).
@Suite struct PeriodicScheduleTests {
    @Test func itFallsDueOnTheIntervalsGridFromItsStartAndAfterEachRun() {
        var schedule = PeriodicSchedule(interval: .milliseconds(50))
        #expect(schedule.due == nil && !schedule.isDue(at: .seconds(1_000_000)), "not started: never due")
        schedule.start(at: .milliseconds(1_234))
        #expect(schedule.due == .milliseconds(1_250))
        schedule.start(at: .milliseconds(1_240))
        #expect(schedule.due == .milliseconds(1_250), "started once: a second start changes nothing")
        schedule.start(at: .milliseconds(1_260))
        #expect(schedule.due == .milliseconds(1_250), "nor one after the instant it is due at: the work is not put off")
        #expect(schedule.isDue(at: .milliseconds(1_260)))
        #expect(!schedule.isDue(at: .milliseconds(1_249)) && schedule.isDue(at: .milliseconds(1_250)))
        schedule.ran(at: .milliseconds(1_250))
        #expect(schedule.due == .milliseconds(1_300), "an instant on the grid: the next one")
        schedule.ran(at: .milliseconds(1_469))
        #expect(schedule.due == .milliseconds(1_500), "a late run: once, and back on the grid")
    }

    @Test func theGridHoldsBeforeTheClocksZeroAndBetweenWholeNanoseconds() {
        let schedule = PeriodicSchedule(interval: .milliseconds(50))
        for (now, next) in [(-10, 0), (-50, 0), (-51, -50), (0, 50), (49, 50), (50, 100)] as [(Int64, Int64)] {
            #expect(schedule.next(after: .milliseconds(now)) == .milliseconds(next), "after \(now) ms")
        }
        #expect(schedule.next(after: .nanoseconds(49_999_999)) == .milliseconds(50))
        #expect(schedule.next(after: .nanoseconds(50_000_000)) == .milliseconds(100))
    }
}
