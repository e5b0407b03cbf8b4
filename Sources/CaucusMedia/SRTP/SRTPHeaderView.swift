/// What SRTP reads of an RTP header: where the payload starts, the sequence number and SSRC.
/// Parsing here is only as deep as SRTP needs; RTP/ owns the full parser.
struct SRTPHeaderView {
    /// Fixed header, CSRCs and header extension: the bytes SRTP authenticates but never encrypts.
    var length: Int
    var sequence: UInt16
    var ssrc: UInt32

    /// Throws if the header does not fit in `packet` minus `trailerLength` (the tag).
    init(_ packet: UnsafeRawBufferPointer, trailerLength: Int) throws(SRTPError) {
        let end = packet.count - trailerLength
        guard end >= 12 else { throw .packetTooShort }
        guard packet[0] >> 6 == 2 else { throw .malformedHeader }
        var length = 12 + 4 * Int(packet[0] & 0x0F)
        if packet[0] & 0x10 != 0 {
            guard end >= length + 4 else { throw .malformedHeader }
            length += 4 + 4 * (Int(packet[length + 2]) << 8 | Int(packet[length + 3]))
        }
        guard length <= end else { throw .malformedHeader }
        self.length = length
        sequence = UInt16(packet[2]) << 8 | UInt16(packet[3])
        ssrc = UInt32(packet[8]) << 24 | UInt32(packet[9]) << 16 | UInt32(packet[10]) << 8 | UInt32(packet[11])
    }
}
