import CaucusMedia
import CaucusSFU
import Testing

/// The downlink estimate from a subscriber's transport-cc feedback, driven directly with a
/// simulated link (``SimulatedDownlink``): what a link carries without a queue is its estimate;
/// a link too slow for what it is sent, or losing a tenth, brings it down.
@Suite struct DownlinkEstimatorTests {
    @Test func aLinkThatCarriesWhatItIsSentIsEstimatedAtThatRate() {
        var estimator = DownlinkEstimator()
        #expect(estimator.estimate == 0, "nothing known before the first feedback")
        var link = SimulatedDownlink()
        link.run(&estimator, rate: 800_000, from: .zero, for: .seconds(3))
        #expect((720_000...880_000).contains(estimator.estimate), "\(estimator.estimate)")
        #expect(estimator.lastOveruse == nil)
        #expect(estimator.isCalm(for: .seconds(1), at: .seconds(3)))
    }

    /// A subscriber whose feedback reports every packet at one arrival time (its reference
    /// time never advancing, every delta 0) does not make the estimator keep every arrival: the
    /// delivered rate counts at most the packets remembered.
    @Test func arrivalsThatNeverAdvanceAreNotAllKept() {
        var estimator = DownlinkEstimator()
        for round in 0..<100 {
            var first: UInt16?
            for index in 0..<100 {
                let number = estimator.stamp(size: 1_000, at: .milliseconds(round * 100 + index))
                first = first ?? number
            }
            let feedback = RTCPTransportFeedback(
                senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: first!, referenceTime: 7, feedbackCount: UInt8(round % 256),
                deltas: Array(repeating: 0, count: 100))
            estimator.receive(feedback, at: .milliseconds(round * 100 + 99))
        }
        // 10,000 packets of 1,000 bytes reported; at most 1,024 of them over the 500 ms window.
        #expect(estimator.deliveredRate <= 1_024 * 1_000 * 8 * 2, "\(estimator.deliveredRate)")
    }

    @Test func aLinkTooSlowForWhatItIsSentBringsTheEstimateBelowItsCapacity() {
        var estimator = DownlinkEstimator()
        var link = SimulatedDownlink()
        let end = link.run(&estimator, rate: 800_000, from: .zero, for: .seconds(2))
        #expect(estimator.estimate > 700_000)
        // The link narrows to 300 kbit/s: a queue builds, the delay grows.
        link.capacity = 300_000
        link.run(&estimator, rate: 800_000, from: end, for: .seconds(3))
        #expect(estimator.estimate < 300_000, "\(estimator.estimate)")
        #expect(estimator.estimate >= 64_000, "never below the minimum")
        #expect(!estimator.isCalm(for: .seconds(1), at: end + .seconds(3)))
    }

    @Test func aLinkThatStaysWithinItsCapacityIsCalm() {
        var estimator = DownlinkEstimator()
        var link = SimulatedDownlink(capacity: 300_000)
        link.run(&estimator, rate: 200_000, from: .zero, for: .seconds(3))
        #expect(estimator.lastOveruse == nil)
        #expect((180_000...220_000).contains(estimator.estimate), "\(estimator.estimate)")
    }

    @Test func losingMoreThanATenthBringsTheEstimateDown() {
        var estimator = DownlinkEstimator()
        var link = SimulatedDownlink(lossEvery: 5)
        link.run(&estimator, rate: 800_000, from: .zero, for: .seconds(3))
        #expect(estimator.lastOveruse != nil)
        #expect(estimator.estimate < 700_000, "\(estimator.estimate)")
        var lightLoss = DownlinkEstimator()
        var lightlyLossy = SimulatedDownlink(lossEvery: 20)
        lightlyLossy.run(&lightLoss, rate: 800_000, from: .zero, for: .seconds(3))
        #expect(lightLoss.lastOveruse == nil, "5 % loss is not congestion")
    }

    /// A probe's cluster: carried on an open link, not on a narrow one (its arrival rate is the
    /// link's) nor when a fifth of it is lost; its packets count for nothing else (the estimate
    /// rises only when the probes' owner raises it).
    @Test func aProbeClusterShowsWhatTheLinkCarries() {
        for (capacity, lossEvery, carried) in [(nil, nil, true), (300_000, nil, false), (nil, 3, false)] as [(Int?, Int?, Bool)] {
            var estimator = DownlinkEstimator()
            var link = SimulatedDownlink(capacity: capacity)
            var now = link.run(&estimator, rate: 150_000, from: .zero, for: .seconds(2))
            let before = estimator.estimate
            link.lossEvery = lossEvery
            link.sendCluster(&estimator, ProbeCluster(id: 1, level: 1_100_000), bytes: 3_500, at: now)
            link.lossEvery = nil
            now = link.run(&estimator, rate: 150_000, from: now, for: .milliseconds(300))
            switch estimator.outcome(ofProbe: 1) {
            case .carried(let rate)?:
                #expect(carried && rate >= 1_100_000, "\(capacity as Any) \(lossEvery as Any)")
                #expect(estimator.estimate < 200_000)
                estimator.raise(to: 1_100_000)
                #expect(estimator.estimate == 1_100_000)
            case .notCarried?:
                #expect(!carried, "\(capacity as Any) \(lossEvery as Any)")
                #expect(estimator.estimate <= max(before, 200_000), "\(estimator.estimate)")
            case nil:
                Issue.record("no outcome")
            }
        }
    }

    /// Feedback about numbers never sent, or reported twice, changes nothing.
    @Test func feedbackOnPacketsNotSentOrAlreadyReportedChangesNothing() {
        var estimator = DownlinkEstimator()
        var link = SimulatedDownlink()
        let end = link.run(&estimator, rate: 800_000, from: .zero, for: .seconds(2))
        let before = estimator.estimate
        let stranger = RTCPTransportFeedback(
            senderSSRC: 9, mediaSSRC: 1, baseSequenceNumber: 40_000, referenceTime: 1, feedbackCount: 0, deltas: [nil, nil, nil, 4, nil])
        estimator.receive(stranger, at: end)
        let replayed = RTCPTransportFeedback(
            senderSSRC: 9, mediaSSRC: 1, baseSequenceNumber: 1, referenceTime: 0, feedbackCount: 0, deltas: Array(repeating: nil, count: 100))
        estimator.receive(replayed, at: end)
        #expect(estimator.estimate == before && estimator.lastOveruse == nil)
    }

    @Test func randomFeedbackNeverTraps() {
        var generator = SplitMix(seed: 22)
        var estimator = DownlinkEstimator()
        for index in 0..<2_000 {
            _ = estimator.stamp(size: Int(generator.next() % 1500), at: .milliseconds(index))
            let deltas = (0..<Int(generator.next() % 40)).map { _ -> Int16? in
                generator.next() % 3 == 0 ? nil : Int16(truncatingIfNeeded: generator.next())
            }
            let feedback = RTCPTransportFeedback(
                senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: UInt16(truncatingIfNeeded: generator.next()),
                referenceTime: UInt32(truncatingIfNeeded: generator.next()), feedbackCount: 0, deltas: deltas)
            estimator.receive(feedback, at: .milliseconds(index))
        }
        #expect(estimator.estimate >= 0)
    }
}
