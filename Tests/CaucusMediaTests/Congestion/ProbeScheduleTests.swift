import CaucusMedia
import CaucusSFU
import Testing

/// When a subscriber's link is probed, with how much, when a rate counts as confirmed, and how
/// long it waits after a probe that found no room.
@Suite struct ProbeScheduleTests {
    /// An estimator that has seen a link carry `rate` for 3 s (ending at 3 s), and the link.
    static func calm(at rate: Int, capacity: Int? = nil) -> (DownlinkEstimator, SimulatedDownlink) {
        var estimator = DownlinkEstimator()
        var link = SimulatedDownlink(capacity: capacity)
        link.run(&estimator, rate: rate, from: .zero, for: .seconds(3))
        return (estimator, link)
    }

    /// Runs the schedule on `link` every 100 ms from `start` until `end` (or `until` holds), the
    /// link carrying 200 kbit/s of media; returns when each cluster went and the rates confirmed.
    static func run(
        _ schedule: inout ProbeSchedule, _ estimator: inout DownlinkEstimator, _ link: inout SimulatedDownlink, target: Int,
        from start: Duration, to end: Duration, until: (DownlinkEstimator) -> Bool = { _ in false }
    ) -> (sent: [Duration], confirmed: [Int]) {
        var now = start
        var sent: [Duration] = []
        var confirmed: [Int] = []
        while now < end, !until(estimator) {
            let step = schedule.step(toReach: target, estimator: estimator, at: now)
            if let rate = step.confirmed {
                confirmed.append(rate)
                estimator.raise(to: rate)
            }
            if let (cluster, bytes) = step.send {
                sent.append(now)
                link.sendCluster(&estimator, cluster, bytes: bytes, at: now)
            }
            now = link.run(&estimator, rate: 200_000, from: now, for: .milliseconds(100))
        }
        return (sent, confirmed)
    }

    @Test func nothingIsProbedWithoutABetterLayerOrBeforeAnyFeedback() {
        var schedule = ProbeSchedule()
        #expect(schedule.step(toReach: 1_000_000, estimator: DownlinkEstimator(), at: .seconds(5)).send == nil)
        let (estimator, _) = Self.calm(at: 200_000)
        #expect(schedule.step(toReach: nil, estimator: estimator, at: .seconds(5)).send == nil)
        #expect(schedule.step(toReach: 150_000, estimator: estimator, at: .seconds(5)).send == nil, "the estimate already holds it")
        #expect(!schedule.isWaiting)
    }

    @Test func aProbeIsAClusterOfTheBetterLayersRateAndATenthForAMoment() throws {
        var schedule = ProbeSchedule()
        let (estimator, _) = Self.calm(at: 200_000)
        let (cluster, bytes) = try #require(schedule.step(toReach: 1_000_000, estimator: estimator, at: .seconds(5)).send)
        #expect(cluster.level == 1_100_000)
        #expect(bytes == 1_100_000 / 8 / 25, "40 ms of it")
        #expect(schedule.isWaiting)
        #expect(schedule.step(toReach: 1_000_000, estimator: estimator, at: .seconds(5) + .milliseconds(50)).send == nil, "one at a time")
        var small = ProbeSchedule()
        #expect(try #require(small.step(toReach: 250_000, estimator: estimator, at: .seconds(5)).send).bytes == ProbeSchedule.smallestCluster)
    }

    /// On an open link two clusters in a row arrive at their level: the rate is confirmed and
    /// the estimate raised to it; not after the first alone.
    @Test func twoClustersThatArriveAtTheirLevelConfirmIt() {
        var schedule = ProbeSchedule()
        var (estimator, link) = Self.calm(at: 200_000)
        let (sent, confirmed) = Self.run(&schedule, &estimator, &link, target: 1_000_000, from: .seconds(3), to: .seconds(6)) { $0.estimate >= 1_000_000 }
        #expect(sent.count == 2, "\(sent)")
        #expect(confirmed == [1_100_000])
        #expect(estimator.estimate == 1_100_000)
    }

    /// On a 300 kbit/s link a cluster probing for 1.1 Mbit/s arrives at about 300: never
    /// confirmed, and the next waits 2, 4, then 6 s (and 6) after each.
    @Test func aClusterALinkCannotCarryBacksOff() {
        var schedule = ProbeSchedule()
        var (estimator, link) = Self.calm(at: 200_000, capacity: 300_000)
        let (sent, confirmed) = Self.run(&schedule, &estimator, &link, target: 1_000_000, from: .seconds(3), to: .seconds(40))
        #expect(confirmed.isEmpty && estimator.estimate < 300_000, "\(estimator.estimate)")
        let gaps = zip(sent, sent.dropFirst()).map { $1 - $0 }
        #expect(gaps.count >= 5)
        // Each outcome is known at a feedback after the cluster (100 ms apart here, give or take a packet).
        let expected: [Duration] = [.seconds(2), .seconds(4), .seconds(6), .seconds(6)]
        for (gap, backoff) in zip(gaps, expected) {
            #expect(gap >= backoff && gap <= backoff + .milliseconds(400), "\(gaps)")
        }
    }

    @Test func aProbeWhoseOutcomeNeverComesCountsAsFailed() {
        var schedule = ProbeSchedule()
        let (estimator, _) = Self.calm(at: 200_000)
        #expect(schedule.step(toReach: 1_000_000, estimator: estimator, at: .seconds(5)).send != nil)
        #expect(schedule.step(toReach: 1_000_000, estimator: estimator, at: .seconds(5) + .milliseconds(900)).send == nil)
        #expect(schedule.step(toReach: 1_000_000, estimator: estimator, at: .seconds(6)).send == nil, "given up, backing off")
        #expect(!schedule.isWaiting)
        #expect(schedule.step(toReach: 1_000_000, estimator: estimator, at: .seconds(8)).send != nil)
    }
}
