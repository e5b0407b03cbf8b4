import CaucusMedia
import CaucusSFU

/// A subscriber's transport-cc reports (RTPFB format 15), as Chromium sends them about every
/// 100 ms: each reports the copies it got since the last, each arrived 20 ms after the one
/// before it in the report (80 × 250 µs); the reference time steps one unit (64 ms) a report,
/// near enough to the 100 ms its copies span for an estimate that only has to run, not to be
/// right. Made before the measurement, for the numbers the engine will give
/// the first subscriber's next copies (it numbers them one after another: nothing else, no
/// probe, takes a number here).
extension ForwardingRoom {
    /// Reports for the first subscriber's next `count` × `packetsPerReport` copies, one per
    /// `packetsPerReport`; plain RTCP, as the engine takes it after SRTCP.
    func transportCCReports(count: Int, packetsPerReport: Int) throws -> [[UInt8]] {
        guard let last = lastTransportSequence else { throw ForwardingRoomError.noTransportNumbers }
        return (0..<count).map { index in
            let base = last &+ 1 &+ UInt16(truncatingIfNeeded: index * packetsPerReport)
            let feedback = RTCPTransportFeedback(
                senderSSRC: 0xB0B0_0001, mediaSSRC: 0, baseSequenceNumber: base,
                referenceTime: UInt32(truncatingIfNeeded: index), feedbackCount: UInt8(truncatingIfNeeded: index),
                deltas: [Int16?](repeating: 80, count: packetsPerReport))
            return feedback.encoded()
        }
    }

    /// The first subscriber's report into the engine, and its outputs drained.
    @inline(__always)
    func report(_ rtcp: [UInt8]) {
        engine.receive(rtcp: rtcp, from: 1, at: now)
        engine.pollOutput { _ in }
    }
}

/// The room's copies carry no transport-wide numbers: it was not made with `transportCC`.
struct ForwardingRoomError: Error {
    static let noTransportNumbers = ForwardingRoomError()
}
