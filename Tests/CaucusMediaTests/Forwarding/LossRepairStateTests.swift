import CaucusMedia
import CaucusSFU
import Testing

/// The loss-repair bookkeeping the forwarding path keeps per publisher stream.
@Suite struct LossRepairStateTests {
    @Test func theCacheKeepsTheLastPacketsAcrossTheWrap() {
        var cache = RetransmissionCache()
        let first: UInt16 = 65_500
        for offset in 0..<600 {
            let sequenceNumber = first &+ UInt16(offset)
            cache.insert([UInt8(truncatingIfNeeded: offset)], sequenceNumber: sequenceNumber)
        }
        let newest = first &+ 599
        #expect(cache.packet(newest) == [UInt8(truncatingIfNeeded: 599)])
        #expect(cache.packet(newest &- UInt16(RetransmissionCache.capacity - 1)) == [UInt8(truncatingIfNeeded: 600 - RetransmissionCache.capacity)])
        #expect(cache.packet(newest &- UInt16(RetransmissionCache.capacity)) == nil, "overwritten by the one 512 later")
        #expect(cache.packet(newest &+ 1) == nil, "never sent")
    }

    @Test func keyframeRequestsWaitForTheOutstandingOne() {
        var requests = KeyframeRequests()
        var answers: [Bool] = []
        answers.append(requests.shouldRequest(7, at: .zero))
        answers.append(requests.shouldRequest(7, at: .milliseconds(100)))  // one is outstanding
        answers.append(requests.shouldRequest(8, at: .milliseconds(100)))  // another stream is another matter
        answers.append(requests.shouldRequest(7, at: .milliseconds(500)))  // unanswered for the retry interval
        requests.keyframeArrived(7)
        answers.append(requests.shouldRequest(7, at: .milliseconds(501)))  // answered: the next goes at once
        answers.append(requests.shouldRequest(7, at: .milliseconds(502)))
        requests.forget(7)
        answers.append(requests.shouldRequest(7, at: .milliseconds(503)))
        #expect(answers == [true, false, true, true, true, false, true])
    }

    @Test func upstreamNACKsAskEachPacketOncePerInterval() {
        var nacks = UpstreamNACKs()
        var asked: [[UInt16]] = []
        asked.append(nacks.toAsk([1, 2, 3], of: 9, at: .zero))
        asked.append(nacks.toAsk([2, 3, 4], of: 9, at: .milliseconds(50)))
        asked.append(nacks.toAsk([2, 3, 4], of: 10, at: .milliseconds(50)))  // per stream
        asked.append(nacks.toAsk([1, 2, 3, 4], of: 9, at: .milliseconds(120)))  // 1–3 asked 120 ms ago, 4 only 70
        nacks.forget(9)
        asked.append(nacks.toAsk([4], of: 9, at: .milliseconds(121)))
        #expect(asked == [[1, 2, 3], [4], [2, 3, 4], [1, 2, 3], [4]])
    }

    /// A flood of distinct lost numbers keeps the bookkeeping bounded and still answers.
    @Test func upstreamNACKsStayBounded() {
        var nacks = UpstreamNACKs()
        for batch in 0..<100 {
            let lost = (0..<100).map { UInt16(truncatingIfNeeded: batch * 100 + $0) }
            let asked = nacks.toAsk(lost, of: 1, at: .milliseconds(batch))
            #expect(asked == lost)
        }
    }

    @Test func upstreamLossAsksForAGapAtOnceAndAgainUntilItComes() {
        var loss = UpstreamLoss()
        var asked: [[UInt16]] = []
        asked.append(loss.received(65_534, at: .zero))
        asked.append(loss.received(2, at: .milliseconds(1)))  // 65535, 0, 1 lost across the wrap
        asked.append(loss.due(at: .milliseconds(20)))
        asked.append(loss.received(0, at: .milliseconds(25)))  // one comes back
        asked.append(loss.due(at: .milliseconds(31)))
        #expect(asked == [[], [65_535, 0, 1], [], [], [65_535, 1]])
        #expect(loss.isMissing(1) && !loss.isMissing(0) && !loss.isMissing(2))
        for step in 2...10 { _ = loss.due(at: .milliseconds(31 * step)) }
        #expect(!loss.isMissing(1), "given up after \(UpstreamLoss.maximumAsks) asks")
    }

    @Test func upstreamLossIsBounded() {
        var loss = UpstreamLoss()
        _ = loss.received(0, at: .zero)
        let restart = loss.received(UInt16(UpstreamLoss.largestGap + 2), at: .zero)
        #expect(restart.isEmpty, "a jump past the largest gap is a restart, not a loss")
        var sequence = UInt16(UpstreamLoss.largestGap + 2)
        for _ in 0..<10 {
            sequence &+= UInt16(UpstreamLoss.largestGap + 1)
            _ = loss.received(sequence, at: .zero)
        }
        let tracked = (0...UInt16.max).filter { loss.isMissing($0) }.count
        #expect(tracked == UpstreamLoss.capacity)
        #expect(loss.isMissing(sequence &- 1), "the newest gaps are kept")
    }
}
