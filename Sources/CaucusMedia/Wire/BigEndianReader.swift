/// Reads big-endian integers and byte runs from a datagram, returning nil (never trapping)
/// when the datagram is shorter than what is asked for.
package struct BigEndianReader {
    package let bytes: [UInt8]
    package private(set) var offset: Int
    package let end: Int

    package init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil) {
        self.bytes = bytes
        self.offset = start
        self.end = min(end ?? bytes.count, bytes.count)
    }

    package var remaining: Int { max(0, end - offset) }
    package var isAtEnd: Bool { offset >= end }

    package mutating func readUInt8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func readUInt16() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { offset += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    package mutating func readUInt24() -> UInt32? {
        guard remaining >= 3 else { return nil }
        defer { offset += 3 }
        return UInt32(bytes[offset]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2])
    }

    package mutating func readUInt32() -> UInt32? {
        guard let high = readUInt16(), let low = readUInt16() else { return nil }
        return UInt32(high) << 16 | UInt32(low)
    }

    package mutating func readUInt64() -> UInt64? {
        guard let high = readUInt32(), let low = readUInt32() else { return nil }
        return UInt64(high) << 32 | UInt64(low)
    }

    package mutating func readBytes(_ count: Int) -> [UInt8]? {
        guard count >= 0, remaining >= count else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    package mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, remaining >= count else { return false }
        offset += count
        return true
    }
}

extension Array where Element == UInt8 {
    package mutating func appendBigEndian(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    package mutating func appendBigEndian24(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    package mutating func appendBigEndian(_ value: UInt32) {
        appendBigEndian(UInt16(truncatingIfNeeded: value >> 16))
        appendBigEndian(UInt16(truncatingIfNeeded: value))
    }

    package mutating func appendBigEndian(_ value: UInt64) {
        appendBigEndian(UInt32(truncatingIfNeeded: value >> 32))
        appendBigEndian(UInt32(truncatingIfNeeded: value))
    }

    /// Overwrites four bytes at `offset` (the caller has checked the bounds).
    package mutating func storeBigEndian(_ value: UInt32, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value >> 24)
        self[offset + 1] = UInt8(truncatingIfNeeded: value >> 16)
        self[offset + 2] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset + 3] = UInt8(truncatingIfNeeded: value)
    }

    package mutating func storeBigEndian(_ value: UInt16, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset + 1] = UInt8(truncatingIfNeeded: value)
    }

    package func loadBigEndianUInt32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8 | UInt32(self[offset + 3])
    }

    package func loadBigEndianUInt16(at offset: Int) -> UInt16 {
        UInt16(self[offset]) << 8 | UInt16(self[offset + 1])
    }
}
