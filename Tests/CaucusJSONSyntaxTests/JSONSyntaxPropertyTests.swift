import CaucusJSONSyntax
import Foundation
import PropertyBased
import Testing

/// The scanner against Foundation's parser as a reference: every JSON text a writer can
/// produce is accepted by both, and whatever the scanner accepts after random damage,
/// Foundation accepts too (the scanner is the stricter of the two). No input crashes it.
@Suite struct JSONSyntaxPropertyTests {
    static let seeds = Gen.int(in: 0...Int.max)

    @Test func acceptsEveryValueAWriterProducesAsFoundationDoes() async {
        await propertyCheck(count: 300, input: Self.seeds) { seed in
            var random = RandomJSON(seed: UInt64(seed))
            let text = random.document()
            #expect(JSONSyntaxTests.check(text) == nil, "\(text)")
            #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)) != nil, "\(text)")
        }
    }

    @Test func neverCrashesOnDamagedInputAndAcceptsNothingFoundationRefuses() async {
        await propertyCheck(count: 2_000, input: Self.seeds) { seed in
            var random = RandomJSON(seed: UInt64(seed))
            var bytes = Array(random.document().utf8)
            for _ in 0...random.below(3) { random.damage(&bytes) }
            if JSONSyntaxTests.check(bytes) == nil {
                #expect(
                    (try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)) != nil,
                    "accepted what Foundation refuses: \(String(decoding: bytes, as: UTF8.self))")
            }
        }
    }

    @Test func findsEveryDuplicateKeyAWriterCouldSlipIn() async {
        await propertyCheck(count: 300, input: Self.seeds) { seed in
            var random = RandomJSON(seed: UInt64(seed))
            let key = random.key()
            let first = random.quoted(key)
            let count = random.below(4)
            let others = random.members(count: count, avoiding: key)
            let again = random.quoted(key)
            let text = "{\(first):1,\(others)\(again):2}"
            #expect(JSONSyntaxTests.check(text)?.reason == .duplicateKey(key), "\(text)")
        }
    }
}

/// Random JSON text with random whitespace and escapes; keys of one object are distinct.
struct RandomJSON {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }

    mutating func document() -> String {
        let before = space()
        let body = value(depth: 0)
        return before + body + space()
    }

    mutating func space() -> String {
        var text = ""
        for _ in 0..<below(3) { text.append([" ", "\n", "\t", "\r"][below(4)]) }
        return text
    }

    mutating func value(depth: Int) -> String {
        switch below(depth > 3 ? 5 : 7) {
        case 0: return ["true", "false", "null"][below(3)]
        case 1: return ["0", "-0", "7", "-12", "3.25", "1e3", "-2.5E-4", "123456789"][below(8)]
        case 2, 3:
            let text = key()
            return quoted(text)
        case 4: return String(below(1_000_000))
        case 5:
            var items: [String] = []
            for _ in 0..<below(4) {
                let before = space()
                let item = value(depth: depth + 1)
                items.append(before + item + space())
            }
            return "[" + items.joined(separator: ",") + "]"
        default:
            let count = below(4)
            let opening = "{" + space()
            return opening + members(count: count, avoiding: nil, depth: depth + 1).dropLast() + "}"
        }
    }

    /// `count` members with distinct keys, each followed by a comma.
    mutating func members(count: Int, avoiding avoided: String?, depth: Int = 3) -> String {
        var used = Set([avoided].compactMap { $0 })
        var text = ""
        for _ in 0..<count {
            let key = key()
            guard used.insert(key).inserted else { continue }
            let name = quoted(key)
            let colon = space() + ":" + space()
            let member = value(depth: depth)
            text += name + colon + member + space() + ","
        }
        return text
    }

    mutating func key() -> String {
        let alphabet: [Character] = ["a", "b", "o", "p", "é", "😀", " ", "\"", "\\", "\n", "/", "\u{7F}", "\u{1}"]
        var text = ""
        for _ in 0..<below(4) { text.append(alphabet[below(alphabet.count)]) }
        return text
    }

    /// A JSON string literal for `text`, escaping what must be escaped and, at random, more.
    mutating func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += below(2) == 0 ? "\\n" : "\\u000a"
            case _ where scalar.value < 0x20: out += "\\u" + String(format: "%04X", scalar.value)
            case _ where scalar.value > 0xFFFF && below(2) == 0:
                let value = scalar.value - 0x10000
                out += String(format: "\\u%04x\\u%04x", 0xD800 + (value >> 10), 0xDC00 + (value & 0x3FF))
            case _ where below(5) == 0 && scalar.value <= 0xFFFF: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Inserts, deletes or replaces one byte, drawn from the bytes that matter to JSON.
    mutating func damage(_ bytes: inout [UInt8]) {
        let pieces: [UInt8] = Array("{}[],:\"\\ ntu".utf8) + [0x00, 0x0A, 0x1F, 0xC3, 0xA9, 0xED, 0xFF, 0xEF, 0xBB, 0xBF]
        let piece = pieces[below(pieces.count)]
        let position = below(bytes.count + 1)
        switch below(3) {
        case 0: bytes.insert(piece, at: position)
        case 1 where position < bytes.count: bytes.remove(at: position)
        default: if position < bytes.count { bytes[position] = piece } else { bytes.append(piece) }
        }
    }
}
