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

    /// The cache copies each packet into storage a slot keeps, rather than keep the caller's
    /// array: the media shell decrypts every datagram into one array of its own, which a kept
    /// reference would make it give up (an allocation per packet). Told apart by where the bytes
    /// lie, since the values are the same either way.
    @Test func theCacheCopiesIntoStorageEachSlotKeeps() throws {
        func storage(_ bytes: [UInt8]?) -> UInt? { bytes?.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } }
        var cache = RetransmissionCache()
        let packet: [UInt8] = Array(repeating: 0xA1, count: 1_000)
        cache.insert(packet, sequenceNumber: 7)
        #expect(cache.packet(7) == packet)
        let slot = try #require(storage(cache.packet(7)))
        #expect(slot != storage(packet), "the cache kept the caller's array")

        // 512 numbers later the same slot: the next packet, shorter, is written where it was.
        let later = 7 &+ UInt16(RetransmissionCache.capacity)
        cache.insert([0xB2, 0xB2, 0xB2], sequenceNumber: later)
        #expect(cache.packet(later) == [0xB2, 0xB2, 0xB2])
        #expect(storage(cache.packet(later)) == slot, "the slot took new storage for the next packet")
        #expect(cache.packet(7) == nil)

        // A repair being sent holds its packet while the slot takes the next: each keeps its bytes.
        let repair = cache.packet(later)
        cache.insert(packet, sequenceNumber: later &+ UInt16(RetransmissionCache.capacity))
        #expect(repair == [0xB2, 0xB2, 0xB2], "overwriting a slot changed a repair in flight")
        #expect(cache.packet(later &+ UInt16(RetransmissionCache.capacity)) == packet)
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
