/// Why a text is not strict JSON (RFC 8259), and where: the byte offset of the first problem.
public struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        case empty
        case byteOrderMark
        case unexpectedEnd
        case unexpectedCharacter
        case trailingComma
        case controlCharacter
        case invalidEscape
        case unpairedSurrogate
        case invalidUTF8
        case invalidNumber
        case duplicateKey(String)
        case tooDeep
        case trailingContent
    }

    public let reason: Reason
    public let offset: Int

    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// The problem in a client's words, e.g. `the key "op" appears twice in one object (byte 17)`.
    public var description: String {
        let what: String
        switch reason {
        case .empty: what = "there is no value"
        case .byteOrderMark: what = "it starts with a byte-order mark"
        case .unexpectedEnd: what = "it ends in the middle of a value"
        case .unexpectedCharacter: what = "a character is out of place"
        case .trailingComma: what = "a comma is followed by no member or element"
        case .controlCharacter: what = "a string holds a raw control character (escape it, e.g. \\n)"
        case .invalidEscape: what = "a string holds an invalid escape"
        case .unpairedSurrogate: what = "a \\u escape is half of a surrogate pair"
        case .invalidUTF8: what = "it is not valid UTF-8"
        case .invalidNumber: what = "a number is not written as JSON numbers are"
        case .duplicateKey(let key): what = "the key \"\(key)\" appears twice in one object"
        case .tooDeep: what = "it nests deeper than \(JSONSyntax.maximumDepth) levels"
        case .trailingContent: what = "something follows the value"
        }
        return "\(what) (byte \(offset))"
    }
}
