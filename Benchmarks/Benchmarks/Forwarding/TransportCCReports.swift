import CaucusMedia
import CaucusSFU

/// A subscriber's transport-cc reports (RTPFB format 15), as Chromium sends them about every
/// 100 ms: each reports the copies it got since the last, every one arrived 20 ms after the
/// one before (80 × 250 µs). Made before the measurement, for the numbers the engine will give
/// the first subscriber's next copies (it numbers them one after another: nothing else, no
/// probe, takes a number here).
extension ForwardingRoom {
    /// Reports for the first subscriber's next `count` × `packetsPerReport` copies, one per
    /// `packetsPerReport`; plain RTCP, as the engine takes it after SRTCP.
    func transportCCReports(count: Int, packetsPerReport: Int) throws -> [[UInt8]] {
        guard let last = lastTransportSequence else { throw TransportCCRoomError.noTransportNumbers }
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

struct TransportCCRoomError: Error {
    static let noTransportNumbers = TransportCCRoomError()
}
