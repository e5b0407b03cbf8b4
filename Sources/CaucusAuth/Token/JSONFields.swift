import Foundation

/// One member of a JWT's JSON header or payload, reduced to what the rules need to tell apart.
enum JSONField: Decodable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    /// An array or object: never a valid value for a claim the rules read, so never looked into.
    case structure

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Strings first: most members are strings, and each failed attempt costs a thrown error.
        // Bool before Double, so that no decoder gets the chance to read `true` as 1.
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else {
            self = .structure
        }
    }
}

/// The members of one JSON object.
struct JSONFields: Decodable {
    let members: [String: JSONField]

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        // Anything but an object (array, string, number) fails here: such a part is no JWT.
        let container = try decoder.container(keyedBy: Key.self)
        var members: [String: JSONField] = [:]
        for key in container.allKeys {
            members[key.stringValue] = try container.decode(JSONField.self, forKey: key)
        }
        self.members = members
    }

    /// The object `bytes` spell, or `nil` for bad UTF-8, bad JSON or JSON that is not an object.
    static func parse(_ bytes: [UInt8]) -> JSONFields? {
        try? JSONDecoder().decode(JSONFields.self, from: Data(bytes))
    }

    subscript(name: String) -> JSONField? { members[name] }
}
