import CaucusJSON
import CaucusProtocol
import Foundation
import Testing

/// A JSON text with every leaf kept as its exact bytes (a string with its escapes, a number as
/// written), and objects' members put in one canonical order. Two texts have equal shapes when
/// they are byte for byte the same apart from the order of members within objects: the one
/// thing in which Foundation's `JSONEncoder` (hash order, different in every process) and
/// `StreamingJSONEncoder` (encoding order) may differ. Whitespace is refused, since neither
/// encoder writes any.
indirect enum JSONShape: Equatable, CustomStringConvertible {
    case leaf([UInt8])
    case array([JSONShape])
    case object([Member])

    struct Member: Equatable {
        var key: [UInt8]
        var value: JSONShape
    }

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    init(_ bytes: [UInt8]) throws {
        var parser = Parser(bytes: bytes)
        self = try parser.value()
        guard parser.index == bytes.count else { throw Malformed(description: "trailing bytes at \(parser.index)") }
    }

    var description: String {
        switch self {
        case .leaf(let bytes): String(decoding: bytes, as: UTF8.self)
        case .array(let items): "[" + items.map(\.description).joined(separator: ",") + "]"
        case .object(let members):
            "{" + members.map { String(decoding: $0.key, as: UTF8.self) + ":" + $0.value.description }.joined(separator: ",") + "}"
        }
    }

    /// Member names in the order written, for each object depth-first: to check order itself.
    static func keyOrder(_ bytes: [UInt8]) throws -> [[String]] {
        var parser = Parser(bytes: bytes)
        parser.recordOrder = true
        _ = try parser.value()
        return parser.order
    }

    struct Parser {
        let bytes: [UInt8]
        var index = 0
        var recordOrder = false
        var order: [[String]] = []

        init(bytes: [UInt8]) { self.bytes = bytes }

        func peek() throws -> UInt8 {
            guard index < bytes.count else { throw Malformed(description: "unexpected end") }
            return bytes[index]
        }

        mutating func expect(_ byte: UInt8) throws {
            guard try peek() == byte else {
                throw Malformed(description: "expected \(Character(UnicodeScalar(byte))) at \(index), found \(bytes[index])")
            }
            index += 1
        }

        mutating func value() throws -> JSONShape {
            switch try peek() {
            case UInt8(ascii: "{"):
                index += 1
                var members: [Member] = []
                if try peek() == UInt8(ascii: "}") {
                    index += 1
                    if recordOrder { order.append([]) }
                    return .object([])
                }
                let slot = order.count
                if recordOrder { order.append([]) }
                while true {
                    let key = try string()
                    try expect(UInt8(ascii: ":"))
                    if recordOrder { order[slot].append(String(decoding: key.dropFirst().dropLast(), as: UTF8.self)) }
                    members.append(Member(key: key, value: try value()))
                    if try peek() == UInt8(ascii: ",") { index += 1; continue }
                    try expect(UInt8(ascii: "}"))
                    break
                }
                members.sort { $0.key.lexicographicallyPrecedes($1.key) }
                return .object(members)
            case UInt8(ascii: "["):
                index += 1
                var items: [JSONShape] = []
                if try peek() == UInt8(ascii: "]") {
                    index += 1
                    return .array([])
                }
                while true {
                    items.append(try value())
                    if try peek() == UInt8(ascii: ",") { index += 1; continue }
                    try expect(UInt8(ascii: "]"))
                    return .array(items)
                }
            case UInt8(ascii: "\""):
                return .leaf(try string())
            default:
                let start = index
                while index < bytes.count, Self.scalarBytes.contains(bytes[index]) { index += 1 }
                guard index > start else { throw Malformed(description: "unexpected byte \(bytes[index]) at \(index)") }
                return .leaf(Array(bytes[start..<index]))
            }
        }

        static let scalarBytes = Set("0123456789+-.eEtruefalsn".utf8)

        /// A string's bytes, quotes and escapes included.
        mutating func string() throws -> [UInt8] {
            let start = index
            try expect(UInt8(ascii: "\""))
            while true {
                let byte = try peek()
                index += 1
                if byte == UInt8(ascii: "\\") {
                    _ = try peek()
                    index += 1
                } else if byte == UInt8(ascii: "\"") {
                    return Array(bytes[start..<index])
                } else if byte < 0x20 {
                    throw Malformed(description: "raw control byte in a string at \(index - 1)")
                }
            }
        }
    }
}

enum Compare {
    static let foundation = JSONEncoder()
    static let streaming = StreamingJSONEncoder()
    /// With Caucus's scalar writers, which must write what `encode(to:)` writes.
    static let caucus = StreamingJSONEncoder.caucus

    /// Encodes `value` with both encoders and expects the same bytes, up to member order within
    /// objects (see `JSONShape`); where no object has two members, the very same bytes.
    /// Returns the streaming encoder's bytes; with Caucus's scalar writers or without, they
    /// are the same.
    @discardableResult
    static func expectSame<T: Encodable>(
        _ value: T, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [UInt8] {
        let expected = [UInt8](try foundation.encode(value))
        let actual = try streaming.encode(value)
        let expectedShape = try JSONShape(expected)
        let actualShape = try JSONShape(actual)
        #expect(
            actualShape == expectedShape,
            "\(comment?.rawValue ?? "")\nstreaming:  \(String(decoding: actual, as: UTF8.self))\nfoundation: \(String(decoding: expected, as: UTF8.self))",
            sourceLocation: sourceLocation)
        #expect(actual.count == expected.count, sourceLocation: sourceLocation)
        if try JSONShape.keyOrder(expected).allSatisfy({ $0.count < 2 }) {
            #expect(actual == expected, sourceLocation: sourceLocation)
        }
        // Appending keeps what was there.
        var framed: [UInt8] = [0xAA, 0xBB]
        try streaming.encode(value, appendingTo: &framed)
        #expect(framed == [0xAA, 0xBB] + actual, sourceLocation: sourceLocation)
        #expect(try caucus.encode(value) == actual, sourceLocation: sourceLocation)
        return actual
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
