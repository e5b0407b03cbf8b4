import Foundation

/// Reads the duration a WebM file's header states (Segment › Info › Duration, scaled by
/// TimestampScale), without reading its clusters: what a recording's length is while it is
/// still being written, or after a crash (``WebMFile`` keeps it current, cluster by cluster).
public enum WebMDurationReader {
    /// How much of the file's front is read: the header is a few hundred bytes.
    static let headerLimit = 4_096

    /// The file's duration in milliseconds, or nil when it is not a WebM file with one.
    public static func durationMilliseconds(ofFileAt path: String) -> Int64? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: headerLimit) else { return nil }
        return durationMilliseconds(in: [UInt8](data))
    }

    /// The duration the header at the front of `bytes` states, in milliseconds.
    public static func durationMilliseconds(in bytes: [UInt8]) -> Int64? {
        var reader = Reader(bytes: bytes)
        guard let header = reader.element(), header.id == MatroskaID.ebml, let headerSize = header.size else { return nil }
        guard reader.skip(headerSize) else { return nil }
        guard let segment = reader.element(), segment.id == MatroskaID.segment else { return nil }
        while let child = reader.element(), child.id != MatroskaID.cluster, let size = child.size {
            guard child.id == MatroskaID.info else {
                guard reader.skip(size) else { return nil }
                continue
            }
            guard size <= bytes.count - reader.position else { return nil }
            let end = reader.position + size
            var scale = 1_000_000.0
            var duration: Double?
            while reader.position < end, let field = reader.element(), let fieldSize = field.size {
                guard let value = reader.bytes(fieldSize) else { return nil }
                if field.id == MatroskaID.timestampScale { scale = Double(value.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }) }
                if field.id == MatroskaID.duration { duration = float(value) }
            }
            guard let duration, duration.isFinite, duration >= 0 else { return nil }
            // A damaged header's duration (or scale) may not fit 64 bits: nil, never a trap.
            return Int64(exactly: (duration * scale / 1_000_000).rounded())
        }
        return nil
    }

    private static func float(_ bytes: [UInt8]) -> Double? {
        let bits = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        switch bytes.count {
        case 4: return Double(Float(bitPattern: UInt32(bits)))
        case 8: return Double(bitPattern: bits)
        default: return nil
        }
    }

    /// EBML elements front to back: an ID (its length marker kept), then a size (nil: unknown).
    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        mutating func element() -> (id: UInt32, size: Int?)? {
            guard let id = variableInteger(maximumLength: 4, keepMarker: true) else { return nil }
            guard let size = variableInteger(maximumLength: 8, keepMarker: false) else { return nil }
            return (UInt32(id.value), size.allOnes ? nil : Int(exactly: size.value))
        }

        mutating func skip(_ count: Int) -> Bool {
            guard count >= 0, count <= bytes.count - position else { return false }
            position += count
            return true
        }

        mutating func bytes(_ count: Int) -> [UInt8]? {
            guard count >= 0, count <= bytes.count - position else { return nil }
            defer { position += count }
            return Array(bytes[position..<position + count])
        }

        private mutating func variableInteger(maximumLength: Int, keepMarker: Bool) -> (value: UInt64, allOnes: Bool)? {
            guard position < bytes.count, bytes[position] != 0 else { return nil }
            let length = bytes[position].leadingZeroBitCount + 1
            guard length <= maximumLength, let raw = self.bytes(length) else { return nil }
            let marker = UInt8(0x80) >> (length - 1)
            var value = UInt64(keepMarker ? raw[0] : raw[0] & ~marker)
            for byte in raw.dropFirst() { value = value << 8 | UInt64(byte) }
            let allOnes = !keepMarker && value == (UInt64(1) << (7 * length)) - 1
            return (value, allOnes)
        }
    }
}
