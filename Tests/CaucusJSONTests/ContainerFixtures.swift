import Foundation

/// Synthetic `Encodable`s that use each container feature; each is a plain closure over an encoder.
struct Custom: Encodable {
    let body: @Sendable (any Encoder) throws -> Void
    init(_ body: @escaping @Sendable (any Encoder) throws -> Void) { self.body = body }
    func encode(to encoder: any Encoder) throws { try body(encoder) }
}

enum K: String, CodingKey { case a, b, c, d, type }

struct NamedKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Encodes nothing at all.
struct Nothing: Encodable {
    func encode(to encoder: any Encoder) throws {}
}

/// A payload that writes into whatever encoder it is handed.
struct Payload: Encodable {
    let x: Int
    let note: String?
}

/// Tags a payload with a type, the payload's fields merging into the same object.
struct Tagged: Encodable {
    let payload: Payload
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: K.self)
        try c.encode("payload", forKey: .type)
        try payload.encode(to: encoder)
        try c.encode(true, forKey: .d)
    }
}

class Animal: Encodable {
    let legs: Int
    init(legs: Int) { self.legs = legs }
}

// Safe: every stored property (here and in `Animal`) is a `let` of a Sendable type, so
// instances never change after init; the check is unchecked only because `Animal` is not final.
final class Dog: Animal, @unchecked Sendable {
    let name: String
    init(name: String) {
        self.name = name
        super.init(legs: 4)
    }
    enum Keys: String, CodingKey { case name }
    override func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(name, forKey: .name)
        try super.encode(to: c.superEncoder())
    }
}

/// Holds whatever a test wants to smuggle out of an `encode(to:)`.
final class Smuggler: @unchecked Sendable {
    var keyed: KeyedEncodingContainer<K>?
    var encoder: (any Encoder)?
}

/// Random JSON-like values, for property tests.
indirect enum Tree: Encodable, Sendable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null
    case array([Tree])
    case optionals([Int?])
    case object([String: Tree])
    case intKeyed([Int: Tree])

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .string(let v): try v.encode(to: encoder)
        case .int(let v): try v.encode(to: encoder)
        case .double(let v): try v.encode(to: encoder)
        case .bool(let v): try v.encode(to: encoder)
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .array(let v): try v.encode(to: encoder)
        case .optionals(let v): try v.encode(to: encoder)
        case .object(let v): try v.encode(to: encoder)
        case .intKeyed(let v): try v.encode(to: encoder)
        }
    }

    /// A tree grown from `seed`, at most `depth` deep.
    static func grow(seed: UInt64, depth: Int = 4) -> Tree {
        var rng = SplitMix(state: seed)
        return grow(&rng, depth: depth)
    }

    static func grow(_ rng: inout SplitMix, depth: Int) -> Tree {
        let pick = Int(rng.next() % (depth > 0 ? 9 : 5))
        switch pick {
        case 0: return .string(randomString(&rng))
        case 1: return .int(Int(bitPattern: UInt(rng.next())) >> Int(rng.next() % 64))
        case 2:
            let d = Double(bitPattern: rng.next())
            return .double(d.isFinite ? d : Double(Int64(bitPattern: rng.next() >> 20)) / 64)
        case 3: return .bool(rng.next() % 2 == 0)
        case 4: return .null
        case 5: return .array((0..<Int(rng.next() % 5)).map { _ in grow(&rng, depth: depth - 1) })
        case 6: return .optionals((0..<Int(rng.next() % 5)).map { _ in rng.next() % 3 == 0 ? nil : Int(rng.next() % 1000) - 500 })
        case 7:
            var object: [String: Tree] = [:]
            for _ in 0..<Int(rng.next() % 5) { object[randomString(&rng)] = grow(&rng, depth: depth - 1) }
            return .object(object)
        default:
            var object: [Int: Tree] = [:]
            for _ in 0..<Int(rng.next() % 5) { object[Int(Int64(bitPattern: rng.next()) >> 40)] = grow(&rng, depth: depth - 1) }
            return .intKeyed(object)
        }
    }

    static func randomString(_ rng: inout SplitMix) -> String {
        String(String.UnicodeScalarView((0..<Int(rng.next() % 12)).map { _ in randomScalar(rng.next()) }))
    }
}

/// Scalars that matter to JSON escaping, often; any scalar now and then.
func randomScalar(_ bits: UInt64) -> Unicode.Scalar {
    let special: [UInt32] = Array(0...0x20) + [0x22, 0x2F, 0x5C, 0x7F, 0x80, 0xA0, 0xE9, 0x2028, 0x2029, 0xFEFF, 0xFFFD, 0xFFFE, 0xFFFF, 0x1F600, 0x10FFFF, 0x301]
    let value = UInt32(truncatingIfNeeded: bits >> 8)
    switch bits % 10 {
    case 0...3: return Unicode.Scalar(special[Int(value % UInt32(special.count))])!
    case 4...6: return Unicode.Scalar(value % 0x80)!
    case 7: return Unicode.Scalar(value % 0x1_0000) ?? "\u{FFFD}"
    default: return Unicode.Scalar(value % 0x11_0000) ?? "\u{D7FF}"
    }
}

struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
