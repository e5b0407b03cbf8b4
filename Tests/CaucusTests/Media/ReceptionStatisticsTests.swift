import CaucusMedia
import Testing

@testable import Caucus

/// The counters of a slot's RTCP reception report (RFC 3550 A.3, A.8), driven directly.
@Suite struct ReceptionStatisticsTests {
    @Test func lossIsCountedAcrossTheWrapAndTheFractionIsPerInterval() throws {
        var statistics = ReceptionStatistics(clockRate: 90_000)
        let none = statistics.reportBlock(ssrc: 5, now: .zero)
        #expect(none == nil, "nothing before the first packet")
        // 65,530 … 65,535, 0 … 3 with 65,534 and 1 lost: 10 expected, 8 received.
        let numbers: [UInt16] = [65_530, 65_531, 65_532, 65_533, 65_535, 0, 2, 3]
        for (index, number) in numbers.enumerated() {
            statistics.record(sequenceNumber: number, timestamp: UInt32(index * 3_000), arrival: .milliseconds(index * 33))
        }
        // A late duplicate from before the wrap moves nothing back.
        statistics.record(sequenceNumber: 65_533, timestamp: 9_000, arrival: .milliseconds(300))
        let firstBlock = statistics.reportBlock(ssrc: 5, now: .seconds(1))
        let first = try #require(firstBlock)
        #expect(first.ssrc == 5)
        #expect(first.highestSequenceNumber == 1 << 16 | 3)
        // Received counts the duplicate, as RFC 3550 A.3 does: 10 expected, 9 received.
        #expect(first.cumulativeLost == 1)
        #expect(first.fractionLost == UInt8((1 << 8) / 10))
        // The next interval: 4 … 13, all here: nothing lost in it.
        for number in UInt16(4)...13 {
            statistics.record(sequenceNumber: number, timestamp: UInt32(number) * 3_000, arrival: .milliseconds(400 + Int(number) * 33))
        }
        let secondBlock = statistics.reportBlock(ssrc: 5, now: .seconds(2))
        let second = try #require(secondBlock)
        #expect(second.fractionLost == 0)
        #expect(second.cumulativeLost == 1)
        #expect(second.highestSequenceNumber == 1 << 16 | 13)
    }

    @Test func jitterIsZeroOnTimeAndGrowsWithIrregularArrivals() throws {
        var steady = ReceptionStatistics(clockRate: 48_000)
        var shaky = ReceptionStatistics(clockRate: 48_000)
        for index in 0..<100 {
            steady.record(sequenceNumber: UInt16(index), timestamp: UInt32(index * 960), arrival: .milliseconds(20 * index))
            // Every other packet 10 ms late: 480 ticks of transit difference each time.
            shaky.record(sequenceNumber: UInt16(index), timestamp: UInt32(index * 960), arrival: .milliseconds(20 * index + (index % 2) * 10))
        }
        let (steadyBlock, shakyBlock) = (steady.reportBlock(ssrc: 1, now: .seconds(3)), shaky.reportBlock(ssrc: 1, now: .seconds(3)))
        #expect(try #require(steadyBlock).jitter == 0)
        let jitter = try #require(shakyBlock).jitter
        // Converges towards the 480-tick difference.
        #expect((400...480).contains(jitter), "\(jitter)")
    }

    @Test func theLastSenderReportAndTheDelaySinceItAreReported() throws {
        var statistics = ReceptionStatistics(clockRate: 90_000)
        statistics.record(sequenceNumber: 1, timestamp: 0, arrival: .seconds(10))
        let ntp: UInt64 = 0x1234_5678_9ABC_DEF0
        statistics.senderReport(ntpTimestamp: ntp, arrival: .seconds(10))
        let reported = statistics.reportBlock(ssrc: 1, now: .milliseconds(11_500))
        let block = try #require(reported)
        #expect(block.lastSenderReport == 0x5678_9ABC)
        #expect(block.delaySinceLastSenderReport == 65_536 * 3 / 2)
    }
}
