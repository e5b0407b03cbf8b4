import CaucusMedia

/// Transport-wide congestion control feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01
/// §3.1; RTPFB, format 15): for a run of transport-wide sequence numbers, which packets arrived
/// and when, so the sender's own estimator (Chromium's GoogCC) can measure the path's delay
/// and loss.
///
/// Encoded with two-bit status vector chunks (seven packets each); arrival deltas in 250 µs
/// units, one byte when 0–255, else two (signed). The reference time is in 64 ms units.
public struct RTCPTransportFeedback: Hashable, Sendable {
    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public var baseSequenceNumber: UInt16
    /// 24 bits, multiples of 64 ms: the time the first delta counts from.
    public var referenceTime: UInt32
    /// Incremented with each feedback, so the sender can tell a lost one.
    public var feedbackCount: UInt8
    /// One entry per sequence number from the base: nil when not received, else the arrival
    /// delta in 250 µs units from the previous received packet's (the first one's from the
    /// reference time).
    public var deltas: [Int16?]

    public static let format: UInt8 = RTCPFeedbackType.transportCCFormat

    public init(senderSSRC: UInt32, mediaSSRC: UInt32, baseSequenceNumber: UInt16, referenceTime: UInt32, feedbackCount: UInt8, deltas: [Int16?]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.baseSequenceNumber = baseSequenceNumber
        self.referenceTime = referenceTime & 0xFF_FFFF
        self.feedbackCount = feedbackCount
        self.deltas = deltas
    }

    /// The whole RTCP packet, padded (RFC 3550 §6.4.1, the P bit and a count) to 32 bits.
    public func encoded() -> [UInt8] {
        var body: [UInt8] = []
        body.appendBigEndian(senderSSRC)
        body.appendBigEndian(mediaSSRC)
        body.appendBigEndian(baseSequenceNumber)
        body.appendBigEndian(UInt16(deltas.count))
        body.appendBigEndian24(referenceTime)
        body.append(feedbackCount)
        var symbols: [UInt8] = deltas.map { delta in
            guard let delta else { return 0 }
            return (0...255).contains(delta) ? 1 : 2
        }
        while symbols.count % 7 != 0 { symbols.append(0) }
        for start in stride(from: 0, to: symbols.count, by: 7) {
            var chunk: UInt16 = 0b11 << 14
            for (index, symbol) in symbols[start..<(start + 7)].enumerated() { chunk |= UInt16(symbol) << (12 - 2 * index) }
            body.appendBigEndian(chunk)
        }
        for case let delta? in deltas {
            if (0...255).contains(delta) {
                body.append(UInt8(delta))
            } else {
                body.appendBigEndian(UInt16(bitPattern: delta))
            }
        }
        let padding = (4 - body.count % 4) % 4
        if padding > 0 { body += [UInt8](repeating: 0, count: padding - 1) + [UInt8(padding)] }
        var packet: [UInt8] = [0x80 | (padding > 0 ? 0x20 : 0) | Self.format, RTCPFeedbackType.transport]
        packet.appendBigEndian(UInt16(body.count / 4))
        return packet + body
    }

    /// Reads the feedback from an RTPFB format-15 packet's fields; nil when malformed.
    public init?(senderSSRC: UInt32, mediaSSRC: UInt32, feedbackControlInformation fci: [UInt8]) {
        guard let view = RTCPTransportFeedbackView(feedbackControlInformation: fci[...]) else { return nil }
        self.init(
            senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, baseSequenceNumber: view.baseSequenceNumber,
            referenceTime: view.referenceTime, feedbackCount: view.feedbackCount, deltas: Array(view))
    }
}
