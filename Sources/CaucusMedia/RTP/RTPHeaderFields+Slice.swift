/// The same fields read from a datagram that lies inside a larger buffer (a recording's batch,
/// which holds a tenth of a second of packets back to back): no copy of its own is made to
/// read it. Indices are the slice's own, as Swift's slices keep them.
extension RTPHeaderFields {
    public static func isRewritable(_ datagram: ArraySlice<UInt8>) -> Bool {
        datagram.count >= RTPPacket.fixedHeaderLength && datagram[datagram.startIndex] >> 6 == 2
    }

    public static func sequenceNumber(of datagram: ArraySlice<UInt8>) -> UInt16? {
        isRewritable(datagram) ? UInt16(bigEndianAt: 2, in: datagram) : nil
    }

    public static func timestamp(of datagram: ArraySlice<UInt8>) -> UInt32? {
        isRewritable(datagram) ? UInt32(bigEndianAt: 4, in: datagram) : nil
    }

    public static func ssrc(of datagram: ArraySlice<UInt8>) -> UInt32? {
        isRewritable(datagram) ? UInt32(bigEndianAt: 8, in: datagram) : nil
    }

    /// Where the payload lies, in the slice's indices (see ``payloadRange(of:)-([UInt8])``).
    public static func payloadRange(of datagram: ArraySlice<UInt8>) -> Range<Int>? {
        guard isRewritable(datagram) else { return nil }
        let base = datagram.startIndex
        let first = datagram[base]
        var start = RTPPacket.fixedHeaderLength + Int(first & 0x0F) * 4
        if first & 0x10 != 0 {
            guard datagram.count >= start + 4 else { return nil }
            start += 4 + Int(UInt16(bigEndianAt: start + 2, in: datagram)) * 4
        }
        guard start <= datagram.count else { return nil }
        var end = datagram.count
        if first & 0x20 != 0 {
            let padding = Int(datagram[base + end - 1])
            guard padding > 0, padding <= end - start else { return nil }
            end -= padding
        }
        return (base + start)..<(base + end)
    }
}

extension UInt16 {
    /// The big-endian value `offset` bytes into `bytes` (the caller has checked the bounds).
    fileprivate init(bigEndianAt offset: Int, in bytes: ArraySlice<UInt8>) {
        let at = bytes.startIndex + offset
        self = UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])
    }
}

extension UInt32 {
    fileprivate init(bigEndianAt offset: Int, in bytes: ArraySlice<UInt8>) {
        let at = bytes.startIndex + offset
        self = UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }
}
