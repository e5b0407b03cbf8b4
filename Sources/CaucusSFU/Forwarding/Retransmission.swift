import CaucusMedia

/// How a repaired packet leaves for a subscriber whose slot negotiated RTX (RFC 4588): on the
/// slot's own retransmission SSRC, under the subscriber's RTX payload type, numbered in that
/// stream's own sequence. A receiver can then tell repairs from media (Chromium's bandwidth
/// estimator does).
public struct RTXEncapsulation: Hashable, Sendable {
    public var ssrc: UInt32
    public var payloadType: UInt8
    public var sequenceNumber: UInt16

    public init(ssrc: UInt32, payloadType: UInt8, sequenceNumber: UInt16) {
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
    }
}

/// RTX packets (RFC 4588 §4): the original packet's header fields under the retransmission
/// stream's SSRC, sequence number and payload type, and the original sequence number (OSN) in
/// two bytes before the original payload.
public enum RTXPacket {
    /// Wraps `packet[..<length]`, a media packet as the subscriber would have received it, in
    /// place: its payload (and any padding) moves two bytes on for the OSN, its own sequence
    /// number. `packet` must hold two bytes past `length`. Returns the new length; nil when the
    /// header does not fit.
    public static func wrap(_ packet: UnsafeMutableRawBufferPointer, length: Int, as rtx: RTXEncapsulation) -> Int? {
        guard length + 2 <= packet.count, let payload = RTPPayload.bounds(in: packet, length: length),
            let base = packet.baseAddress
        else { return nil }
        let originalSequence = (packet[2], packet[3])
        (base + payload.lowerBound + 2).copyMemory(from: base + payload.lowerBound, byteCount: length - payload.lowerBound)
        (packet[payload.lowerBound], packet[payload.lowerBound + 1]) = originalSequence
        packet[1] = packet[1] & 0x80 | rtx.payloadType & 0x7F
        packet[2] = UInt8(rtx.sequenceNumber >> 8)
        packet[3] = UInt8(rtx.sequenceNumber & 0xFF)
        for index in 0..<4 { packet[8 + index] = UInt8(truncatingIfNeeded: rtx.ssrc >> (24 - 8 * index)) }
        return length + 2
    }

    /// The original packet inside a publisher's RTX packet: `mediaSSRC`, the OSN as its number,
    /// `mediaPayloadType` (the marker kept), the payload after the OSN (padding dropped). Nil
    /// when it carries no original: a padding-only probe, or nothing after the OSN.
    public static func unwrap(_ packet: [UInt8], mediaSSRC: UInt32, mediaPayloadType: UInt8) -> [UInt8]? {
        let bounds = packet.withUnsafeBytes { RTPPayload.bounds(in: $0, length: packet.count) }
        guard let payload = bounds, payload.count > 2 else { return nil }
        var original = Array(packet[..<payload.lowerBound])
        original += packet[(payload.lowerBound + 2)..<payload.upperBound]
        original[0] &= ~0x20
        original[1] = packet[1] & 0x80 | mediaPayloadType & 0x7F
        (original[2], original[3]) = (packet[payload.lowerBound], packet[payload.lowerBound + 1])
        for index in 0..<4 { original[8 + index] = UInt8(truncatingIfNeeded: mediaSSRC >> (24 - 8 * index)) }
        return original
    }
}
