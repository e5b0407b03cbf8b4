import CaucusMedia
import Testing

/// When a subscriber's link is probed, at what rate, and how long it waits after a probe that
/// found no room.
@Suite struct ProbeScheduleTests {
    static let tick = Duration.milliseconds(50)

    /// An estimator that has seen a calm link carry `rate` for 3 s (ending at 3 s).
    static func calm(at rate: Int) -> DownlinkEstimator {
        var estimator = DownlinkEstimator()
        var link = SimulatedDownlink()
        link.run(&estimator, rate: rate, from: .zero, for: .seconds(3))
        return estimator
    }

    @Test func nothingIsProbedWithoutABetterLayerOrBeforeAnyFeedback() {
        var schedule = ProbeSchedule()
        #expect(schedule.bytes(toReach: 1_000_000, sending: 0, estimator: DownlinkEstimator(), interval: Self.tick, at: .seconds(5)) == 0)
        #expect(schedule.bytes(toReach: nil, sending: 200_000, estimator: Self.calm(at: 200_000), interval: Self.tick, at: .seconds(5)) == 0)
        #expect(schedule.bytes(toReach: 150_000, sending: 200_000, estimator: Self.calm(at: 200_000), interval: Self.tick, at: .seconds(5)) == 0,
                "the estimate already holds it")
        #expect(!schedule.isProbing)
    }

    @Test func aProbeSendsTheMissingRateForHalfASecond() {
        var schedule = ProbeSchedule()
        let estimator = Self.calm(at: 200_000)
        // The better layer needs 1 Mbit/s: probe at 1.1 Mbit/s less the 200 kbit/s sent.
        let start = Duration.seconds(5)
        #expect(schedule.bytes(toReach: 1_000_000, sending: 200_000, estimator: estimator, interval: Self.tick, at: start) == 900_000 / 8 / 20)
        var total = 0
        var now = start + Self.tick
        while schedule.isProbing {
            total += schedule.bytes(toReach: 1_000_000, sending: 200_000, estimator: estimator, interval: Self.tick, at: now)
            now += Self.tick
        }
        #expect(total == 900_000 / 8 / 20 * 9, "ten ticks in all")
        #expect(now - start <= ProbeSchedule.duration + Self.tick * 2)
    }

    @Test func aProbeThatFindsNoRoomWaitsTwiceAsLongEachTimeUpToTheLongest() {
        var schedule = ProbeSchedule()
        let stuck = Self.calm(at: 200_000)
        var now = Duration.seconds(5)
        var starts: [Duration] = []
        while now < .seconds(60) {
            let wasProbing = schedule.isProbing
            _ = schedule.bytes(toReach: 1_000_000, sending: 200_000, estimator: stuck, interval: Self.tick, at: now)
            if !wasProbing && schedule.isProbing { starts.append(now) }
            now += Self.tick
        }
        let gaps = zip(starts, starts.dropFirst()).map { $1 - $0 }
        let expected: [Duration] = [.seconds(4), .seconds(8), .seconds(8)].map { $0 + ProbeSchedule.duration }
        #expect(Array(gaps.prefix(3)) == expected, "\(gaps)")
    }

    @Test func overuseEndsAProbeAtOnce() {
        var schedule = ProbeSchedule()
        let estimator = Self.calm(at: 200_000)
        _ = schedule.bytes(toReach: 1_000_000, sending: 200_000, estimator: estimator, interval: Self.tick, at: .seconds(5))
        #expect(schedule.isProbing)
        schedule.overused(at: .seconds(5) + Self.tick)
        #expect(!schedule.isProbing)
        #expect(schedule.bytes(toReach: 1_000_000, sending: 200_000, estimator: estimator, interval: Self.tick, at: .seconds(6)) == 0, "backing off")
    }

    @Test func aProbeThatReachedItsTargetLetsTheNextComeSoon() {
        var schedule = ProbeSchedule()
        _ = schedule.bytes(toReach: 500_000, sending: 200_000, estimator: Self.calm(at: 200_000), interval: Self.tick, at: .seconds(5))
        // The link carried it: the estimate rose past the target.
        let raised = Self.calm(at: 600_000)
        var now = Duration.seconds(5)
        while schedule.isProbing {
            now += Self.tick
            _ = schedule.bytes(toReach: 500_000, sending: 200_000, estimator: raised, interval: Self.tick, at: now)
        }
        let ended = now
        // A still better layer: probed again after the shortest wait.
        var next = ended
        while !schedule.isProbing {
            next += Self.tick
            _ = schedule.bytes(toReach: 2_000_000, sending: 600_000, estimator: raised, interval: Self.tick, at: next)
        }
        #expect(next - ended == ProbeSchedule.shortestBackoff)
    }
}
