/// A client's own name for one command (an idempotency key), so that a command whose outcome
/// it never heard (its connection was lost before the reply) can be sent again safely: the
/// session applies a command at most once per user and key, answers a repeat as it answered
/// the first, and refuses the key for any other command (`requestKeyReused`). `chat` takes
/// one (`Command.chat`'s `key`). One to 64 characters: ASCII letters, digits, `-`, `_`, `.`
/// and `:` (a UUID fits, as does `ios-7f3a:42`).
public struct RequestKey: Hashable, Sendable, CustomStringConvertible {
    public static let maximumLength = 64

    public let text: String

    /// The key `text` names, or `invalidArguments` saying what is wrong with it.
    public init(_ text: String) throws(CaucusError) {
        guard !text.isEmpty else { throw CaucusError(.invalidArguments, "\"requestKey\" is empty: leave it out, or give 1 to 64 characters.") }
        let length = text.unicodeScalars.count
        guard length <= Self.maximumLength else {
            throw CaucusError(.invalidArguments, "\"requestKey\" is \(length) characters long: at most \(Self.maximumLength).")
        }
        if let bad = text.unicodeScalars.first(where: { !Self.allowed($0) }) {
            throw CaucusError(
                .invalidArguments,
                "\"requestKey\" holds U+\(Self.hex(bad)): only ASCII letters, digits, \"-\", \"_\", \".\" and \":\" may be used.")
        }
        self.text = text
    }

    public var description: String { text }

    /// A scalar's number as Unicode writes it: U+0020, U+00E9.
    private static func hex(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private static func allowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".", ":": true
        default: false
        }
    }
}

extension RequestKey: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.message)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
