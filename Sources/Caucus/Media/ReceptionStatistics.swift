internal import CaucusMedia

/// What one receive slot's stream looked like on arrival, for its RTCP reception report
/// (RFC 3550 §6.4.1, the counters of its appendix A.3 and the jitter of A.8). Pure: fed
/// each packet's sequence number, timestamp and arrival time.
struct ReceptionStatistics {
    let clockRate: Int
    private var started = false
    private var baseSequence: UInt32 = 0
    private var highest: UInt16 = 0
    /// Wraps of the 16-bit sequence number, shifted into the extended number's high half.
    private var cycles: UInt32 = 0
    private var received: UInt32 = 0
    private var expectedAtLastReport: UInt32 = 0
    private var receivedAtLastReport: UInt32 = 0
    private var lastTransit: Int64?
    /// In timestamp units, scaled by 16 as the RFC's integer version keeps it.
    private var jitterTimesSixteen: Int64 = 0
    private var lastSenderReport: (middle: UInt32, arrival: Duration)?

    init(clockRate: Int) { self.clockRate = clockRate }

    /// One packet that arrived at `arrival` (the receiver's monotonic clock).
    mutating func record(sequenceNumber: UInt16, timestamp: UInt32, arrival: Duration) {
        if !started {
            started = true
            baseSequence = UInt32(sequenceNumber)
            highest = sequenceNumber
        } else {
            let ahead = sequenceNumber &- highest
            if ahead != 0, ahead < 0x8000 {
                if sequenceNumber < highest { cycles &+= 1 << 16 }
                highest = sequenceNumber
            }
        }
        received &+= 1
        let (seconds, attoseconds) = arrival.components
        let arrivalTicks = seconds &* Int64(clockRate) &+ attoseconds / (1_000_000_000_000_000_000 / Int64(clockRate))
        let transit = arrivalTicks &- Int64(timestamp)
        if let lastTransit {
            let difference = abs(transit &- lastTransit)
            jitterTimesSixteen += difference - (jitterTimesSixteen + 8) / 16
        }
        lastTransit = transit
    }

    /// A sender report about this stream arrived (the server forwards its source's).
    mutating func senderReport(ntpTimestamp: UInt64, arrival: Duration) {
        lastSenderReport = (UInt32(truncatingIfNeeded: ntpTimestamp >> 16), arrival)
    }

    /// The report block for `ssrc` now, and the interval's counters reset; nil before any packet.
    mutating func reportBlock(ssrc: UInt32, now: Duration) -> RTCPReportBlock? {
        guard started else { return nil }
        let extendedHighest = cycles | UInt32(highest)
        let expected = extendedHighest &- baseSequence &+ 1
        let lost = Int64(expected) - Int64(received)
        let expectedInterval = expected &- expectedAtLastReport
        let receivedInterval = received &- receivedAtLastReport
        expectedAtLastReport = expected
        receivedAtLastReport = received
        let lostInterval = Int64(expectedInterval) - Int64(receivedInterval)
        let fraction = expectedInterval == 0 || lostInterval <= 0 ? 0 : UInt8(min(255, (lostInterval << 8) / Int64(expectedInterval)))
        var delay: UInt32 = 0
        if let last = lastSenderReport {
            // In units of 1/65,536 s.
            let (seconds, attoseconds) = (now - last.arrival).components
            delay = UInt32(clamping: seconds * 65_536 + attoseconds / 15_258_789_062_500)
        }
        return RTCPReportBlock(
            ssrc: ssrc, fractionLost: fraction, cumulativeLost: Int32(clamping: lost), highestSequenceNumber: extendedHighest,
            jitter: UInt32(clamping: jitterTimesSixteen / 16), lastSenderReport: lastSenderReport?.middle ?? 0,
            delaySinceLastSenderReport: delay)
    }
}
