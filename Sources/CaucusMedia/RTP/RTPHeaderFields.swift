/// Reads and rewrites the fixed RTP header fields of a datagram in place, without decoding
/// it: what the router does to every forwarded packet (RFC 3550 §5.1 offsets).
public enum RTPHeaderFields {
    /// True when `datagram` is long enough for the fixed header and says version 2.
    public static func isRewritable(_ datagram: [UInt8]) -> Bool {
        datagram.count >= RTPPacket.fixedHeaderLength && datagram[0] >> 6 == 2
    }

    public static func payloadType(of datagram: [UInt8]) -> UInt8? {
        isRewritable(datagram) ? datagram[1] & 0x7F : nil
    }

    public static func sequenceNumber(of datagram: [UInt8]) -> UInt16? {
        isRewritable(datagram) ? datagram.loadBigEndianUInt16(at: 2) : nil
    }

    public static func timestamp(of datagram: [UInt8]) -> UInt32? {
        isRewritable(datagram) ? datagram.loadBigEndianUInt32(at: 4) : nil
    }

    public static func ssrc(of datagram: [UInt8]) -> UInt32? {
        isRewritable(datagram) ? datagram.loadBigEndianUInt32(at: 8) : nil
    }

    /// Overwrites the given fields, leaving the others (and the marker bit) as they are.
    /// Returns false, changing nothing, when the datagram is not an RTP packet.
    @discardableResult
    public static func rewrite(
        _ datagram: inout [UInt8], payloadType: UInt8? = nil, sequenceNumber: UInt16? = nil,
        timestamp: UInt32? = nil, ssrc: UInt32? = nil
    ) -> Bool {
        guard isRewritable(datagram) else { return false }
        if let payloadType { datagram[1] = datagram[1] & 0x80 | payloadType & 0x7F }
        if let sequenceNumber { datagram.storeBigEndian(sequenceNumber, at: 2) }
        if let timestamp { datagram.storeBigEndian(timestamp, at: 4) }
        if let ssrc { datagram.storeBigEndian(ssrc, at: 8) }
        return true
    }
}
