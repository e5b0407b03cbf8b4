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

    /// Where the payload lies: after the fixed header, the CSRCs and the header extension,
    /// before the padding. Nil when those do not fit in the datagram (what
    /// ``RTPPacket/init(decoding:)`` refuses as truncated or badly padded), read in place.
    public static func payloadRange(of datagram: [UInt8]) -> Range<Int>? {
        payloadRange(of: datagram[...])
    }

    /// The data of the first header extension element with this ID (one-byte or two-byte
    /// form), read in place: how the router reads audio levels and MIDs on every packet.
    /// Nil when absent or when the header is malformed.
    public static func extensionElement(id: UInt8, in datagram: [UInt8]) -> ArraySlice<UInt8>? {
        guard isRewritable(datagram), datagram[0] & 0x10 != 0, id != 0 else { return nil }
        let blockHeader = RTPPacket.fixedHeaderLength + Int(datagram[0] & 0x0F) * 4
        guard datagram.count >= blockHeader + 4 else { return nil }
        let profile = datagram.loadBigEndianUInt16(at: blockHeader)
        let end = blockHeader + 4 + Int(datagram.loadBigEndianUInt16(at: blockHeader + 2)) * 4
        guard end <= datagram.count else { return nil }
        let twoByte: Bool
        if profile == RTPHeaderExtension.oneByteProfile {
            twoByte = false
        } else if profile & 0xFFF0 == RTPHeaderExtension.twoByteProfile {
            twoByte = true
        } else {
            return nil
        }
        var offset = blockHeader + 4
        while offset < end {
            let first = datagram[offset]
            if first == 0 {
                offset += 1
                continue
            }
            let elementID: UInt8
            let length: Int
            if twoByte {
                guard offset + 1 < end else { return nil }
                elementID = first
                length = Int(datagram[offset + 1])
                offset += 2
            } else {
                elementID = first >> 4
                if elementID == 15 { return nil }
                length = Int(first & 0x0F) + 1
                offset += 1
            }
            guard offset + length <= end else { return nil }
            if elementID == id { return datagram[offset..<(offset + length)] }
            offset += length
        }
        return nil
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
