import Foundation

/// Scalars, written the way Foundation's JSONEncoder writes them.
extension EncoderSink {
    /// Writes `value` if JSON writes its type directly (strings, numbers, booleans, and the
    /// Foundation types JSONEncoder treats specially); false for any other type.
    @inline(__always)
    func writeDirect<T: Encodable, Key: CodingKey>(_ value: T, key: Key?) throws -> Bool {
        if T.self == String.self {
            writeString(unsafeBitCast(value, to: String.self))
        } else if T.self == Int.self {
            writeInteger(unsafeBitCast(value, to: Int.self))
        } else if T.self == Bool.self {
            writeBool(unsafeBitCast(value, to: Bool.self))
        } else if T.self == Int64.self {
            writeInteger(unsafeBitCast(value, to: Int64.self))
        } else if T.self == Double.self {
            try writeFloat(unsafeBitCast(value, to: Double.self), key: key)
        } else if let scalars, scalars.write(value, into: JSONScalarOutput(sink: self)) {
            return true
        } else {
            return try writeRareDirect(value, key: key)
        }
        return true
    }

    func writeRareDirect<T: Encodable, Key: CodingKey>(_ value: T, key: Key?) throws -> Bool {
        if T.self == Int32.self {
            writeInteger(unsafeBitCast(value, to: Int32.self))
        } else if T.self == UInt64.self {
            writeInteger(unsafeBitCast(value, to: UInt64.self))
        } else if T.self == UInt.self {
            writeInteger(unsafeBitCast(value, to: UInt.self))
        } else if T.self == UInt32.self {
            writeInteger(unsafeBitCast(value, to: UInt32.self))
        } else if T.self == Int16.self {
            writeInteger(unsafeBitCast(value, to: Int16.self))
        } else if T.self == UInt16.self {
            writeInteger(unsafeBitCast(value, to: UInt16.self))
        } else if T.self == Int8.self {
            writeInteger(unsafeBitCast(value, to: Int8.self))
        } else if T.self == UInt8.self {
            writeInteger(unsafeBitCast(value, to: UInt8.self))
        } else if T.self == Float.self {
            try writeFloat(unsafeBitCast(value, to: Float.self), key: key)
        } else if T.self == Data.self {
            // JSONEncoder's default `.base64`, not Data's own array of bytes.
            writeString((value as! Data).base64EncodedString())
        } else if T.self == URL.self {
            // JSONEncoder writes a URL as its absolute string.
            writeString((value as! URL).absoluteString)
        } else if T.self == Decimal.self {
            throw record(
                EncodingError.invalidValue(
                    value,
                    EncodingError.Context(
                        codingPath: pathHere(key),
                        debugDescription: "StreamingJSONEncoder does not encode Decimal (JSONEncoder writes it as a number).")))
        } else {
            return false
        }
        return true
    }

    func pathHere<Key: CodingKey>(_ key: Key?) -> [any CodingKey] {
        var path = codingPath(Slot(depth: Int32(frames.count - 1), serial: 0))
        if let key { path.append(key) }
        return path
    }

    @inline(__always)
    func writeBool(_ value: Bool) {
        if value {
            bytes.append(UInt8(ascii: "t"))
            bytes.append(UInt8(ascii: "r"))
            bytes.append(UInt8(ascii: "u"))
            bytes.append(UInt8(ascii: "e"))
        } else {
            bytes.append(UInt8(ascii: "f"))
            bytes.append(UInt8(ascii: "a"))
            bytes.append(UInt8(ascii: "l"))
            bytes.append(UInt8(ascii: "s"))
            bytes.append(UInt8(ascii: "e"))
        }
    }

    @inline(__always)
    func writeNull() {
        bytes.append(UInt8(ascii: "n"))
        bytes.append(UInt8(ascii: "u"))
        bytes.append(UInt8(ascii: "l"))
        bytes.append(UInt8(ascii: "l"))
    }

    @inline(__always)
    func writeInteger<I: FixedWidthInteger>(_ value: I) {
        if I.isSigned && value < 0 {
            bytes.append(UInt8(ascii: "-"))
            writeDecimal(UInt64(truncatingIfNeeded: value.magnitude))
        } else {
            writeDecimal(UInt64(truncatingIfNeeded: value))
        }
    }

    func writeDecimal(_ value: UInt64) {
        if value < 10 {
            bytes.append(UInt8(truncatingIfNeeded: value) &+ 0x30)
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var index = 20
            var rest = value
            while rest != 0 {
                let (quotient, remainder) = rest.quotientAndRemainder(dividingBy: 10)
                index -= 1
                digits[index] = UInt8(truncatingIfNeeded: remainder) &+ 0x30
                rest = quotient
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[index..<20]))
        }
    }

    /// As JSONEncoder: Swift's shortest round-trip `description`, without a trailing `.0`;
    /// non-finite values throw.
    func writeFloat<F: BinaryFloatingPoint & CustomStringConvertible, Key: CodingKey>(_ value: F, key: Key?) throws {
        guard value.isFinite else {
            throw record(
                EncodingError.invalidValue(
                    value,
                    EncodingError.Context(
                        codingPath: pathHere(key), debugDescription: "Unable to encode \(F.self).\(value) directly in JSON.")))
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    @inline(__always)
    func writeString(_ string: String) {
        var string = string
        string.withUTF8 { writeEscaped($0) }
    }

    /// JSONEncoder's escaping: `"` `\` `/` and U+0000–U+001F; `\b \t \n \f \r` by name, the
    /// other controls as `\u00xx` in lowercase hex; everything else (U+007F, non-ASCII) as is.
    func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        var runStart = 0
        var index = 0
        let count = utf8.count
        while index < count {
            let byte = utf8[index]
            if byte >= 0x30 && byte != 0x5C || byte >= 0x20 && byte != 0x22 && byte != 0x2F && byte < 0x30 {
                index += 1
                continue
            }
            if runStart < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case 0x22: bytes.append(UInt8(ascii: "\""))
            case 0x5C: bytes.append(UInt8(ascii: "\\"))
            case 0x2F: bytes.append(UInt8(ascii: "/"))
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            default:
                bytes.append(UInt8(ascii: "u"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(Self.hexDigit(byte >> 4))
                bytes.append(Self.hexDigit(byte & 0xF))
            }
            index += 1
            runStart = index
        }
        if runStart < count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<count])) }
        bytes.append(UInt8(ascii: "\""))
    }

    @inline(__always)
    static func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? nibble &+ 0x30 : nibble &+ 0x57 }
}
