import CaucusMedia

/// Where an RTP packet's payload lies, for the forwarding path's in-place rewrites (redundant
/// audio, retransmissions): after the CSRCs and the header extension, before any padding.
enum RTPPayload {
    /// The payload's bounds in `packet[..<length]`; nil when the header, or the padding count,
    /// does not fit.
    static func bounds(in packet: UnsafeRawBufferPointer, length: Int) -> Range<Int>? {
        guard length >= 12, length <= packet.count else { return nil }
        var start = 12 + Int(packet[0] & 0x0F) * 4
        if packet[0] & 0x10 != 0 {
            guard start + 4 <= length else { return nil }
            start += 4 + (Int(packet[start + 2]) << 8 | Int(packet[start + 3])) * 4
        }
        var end = length
        if packet[0] & 0x20 != 0 {
            end -= Int(packet[length - 1])
        }
        guard start <= end else { return nil }
        return start..<end
    }

    static func bounds(in packet: UnsafeMutableRawBufferPointer, length: Int) -> Range<Int>? {
        bounds(in: UnsafeRawBufferPointer(packet), length: length)
    }
}
