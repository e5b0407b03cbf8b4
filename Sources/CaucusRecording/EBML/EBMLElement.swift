/// One EBML element (RFC 8794) as bytes: its ID, its size as a variable-length integer, its
/// data. Matroska and WebM are EBML documents; this is the whole of the encoding they need.
public enum EBMLElement {
    /// The size of a master element whose end is not known when it is written (RFC 8794 §6.2):
    /// all value bits set. A reader takes the element to run until an element that cannot be
    /// its child, or to the end of the file, which is what makes a cut-off file readable.
    public static let unknownSize: [UInt8] = [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]

    /// The ID's bytes as Matroska lists them: the length marker is part of the ID.
    public static func id(_ id: UInt32) -> [UInt8] {
        let length = id > 0xFF_FFFF ? 4 : id > 0xFFFF ? 3 : id > 0xFF ? 2 : 1
        return (0..<length).reversed().map { UInt8(truncatingIfNeeded: id >> ($0 * 8)) }
    }

    /// `value` as the shortest variable-length integer that holds it (RFC 8794 §4): a length
    /// marker bit, then the value. A value whose bits would all be set at some length takes
    /// one byte more, since all-ones means "unknown". Sizes stay below 2^56 - 1.
    public static func size(_ value: UInt64) -> [UInt8] {
        let (marked, length) = markedSize(value)
        return (0..<length).reversed().map { UInt8(truncatingIfNeeded: marked >> ($0 * 8)) }
    }

    /// The variable-length integer of ``size(_:)`` as a number (its bytes, big-endian, are
    /// the low `length` bytes of `marked`) and its length in bytes.
    static func markedSize(_ value: UInt64) -> (marked: UInt64, length: Int) {
        var length = 1
        while length < 8, value >= (UInt64(1) << (7 * length)) - 1 { length += 1 }
        return (value | (UInt64(1) << (7 * length)), length)
    }

    /// An element holding `data` as it is (a binary, a string's UTF-8, or children already encoded).
    public static func element(_ id: UInt32, _ data: [UInt8]) -> [UInt8] {
        Self.id(id) + size(UInt64(data.count)) + data
    }

    /// A master element of unknown size: its header only; its children follow.
    public static func openMaster(_ id: UInt32) -> [UInt8] {
        Self.id(id) + unknownSize
    }

    /// An unsigned integer in as few bytes as hold it (at least one).
    public static func unsigned(_ id: UInt32, _ value: UInt64) -> [UInt8] {
        var length = 1
        while length < 8, value >> (8 * length) != 0 { length += 1 }
        return element(id, (0..<length).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) })
    }

    /// A UTF-8 string (Matroska's "utf-8" and, for ASCII text, "string" types).
    public static func string(_ id: UInt32, _ value: String) -> [UInt8] {
        element(id, Array(value.utf8))
    }

    /// A float, as 8 bytes (IEEE 754 binary64, big-endian): a fixed width, so it can be
    /// overwritten in place (the segment's duration).
    public static func float(_ id: UInt32, _ value: Double) -> [UInt8] {
        element(id, floatBytes(value))
    }

    /// The eight bytes of a float element's data.
    public static func floatBytes(_ value: Double) -> [UInt8] {
        let bits = value.bitPattern
        return (0..<8).reversed().map { UInt8(truncatingIfNeeded: bits >> ($0 * 8)) }
    }

    /// A signed integer in eight bytes, two's complement.
    public static func signed(_ id: UInt32, _ value: Int64) -> [UInt8] {
        let bits = UInt64(bitPattern: value)
        return element(id, (0..<8).reversed().map { UInt8(truncatingIfNeeded: bits >> ($0 * 8)) })
    }
}
