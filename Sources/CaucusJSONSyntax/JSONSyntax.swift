/// A validating scanner for strict JSON (RFC 8259), run on every request before it is
/// decoded: Foundation's decoders accept a byte-order mark, trailing commas, raw control
/// characters and duplicate keys (keeping one of them), and a strict server must not.
///
/// It builds nothing but the set of keys of each open object (to find a key given twice,
/// compared after unescaping) and so costs one pass over the bytes.
public enum JSONSyntax {
    /// Deeper nesting is refused; requests nest three levels at most.
    public static let maximumDepth = 64

    /// What a valid text holds that a reader may want to refuse although it is valid JSON.
    public struct Findings: Hashable, Sendable {
        /// Where each `null` is, in the order written.
        public var nulls: [Place] = []
        /// Where each number is that is not an integer of 64 bits: one written with a
        /// fraction or an exponent (`1.5`, `1.0`, `1e2`), or beyond -2⁶³…2⁶³-1.
        public var nonIntegers: [Place] = []

        /// Where the first `null` is: `"settings.countdownSeconds"`, `"users[1]"`, or `""` for
        /// a `null` standing alone; `nil` when there is none.
        public var firstNull: String? { nulls.first?.path }
        public var firstNonInteger: String? { nonIntegers.first?.path }
    }

    /// Where a value is: its path as a reader would write it, and the member of the
    /// outermost object it is in (so a reader can tell the members it knows from the others,
    /// even when a key holds a dot).
    public struct Place: Hashable, Sendable {
        /// `"settings.countdownSeconds"`, `"users[1]"`, or `""` for the whole text.
        public let path: String
        /// The outermost object's key the value is under; `nil` for the whole text or inside
        /// an outermost array.
        public let topLevelKey: String?
    }

    /// How many bytes of a key a ``Place``'s path and top-level key hold; a longer key is
    /// named by its first bytes and `…` (so it never equals a name a reader knows).
    public static let maximumKeyInPlace = 128

    /// Checks that `bytes` are one strict JSON value, optionally surrounded by whitespace.
    ///
    /// `topLevelKeys`: when given, only the findings under these members of the outermost
    /// object are recorded (and those outside any member: the whole text, an outermost
    /// array's items). A reader that would ignore the rest says so, and a text of thousands
    /// of `null`s under a key nobody reads costs no place each (a place's strings, made for
    /// every finding, once cost a 64 KiB frame hundreds of megabytes).
    @discardableResult
    public static func validate(_ bytes: UnsafeRawBufferPointer, recordingUnder topLevelKeys: Set<String>? = nil) throws(JSONSyntaxError) -> Findings {
        var scanner = Scanner(bytes: bytes, topLevelKeys: topLevelKeys)
        try scanner.document()
        return scanner.findings
    }

    @discardableResult
    public static func validate(_ bytes: [UInt8], recordingUnder topLevelKeys: Set<String>? = nil) throws(JSONSyntaxError) -> Findings {
        let result: Result<Findings, JSONSyntaxError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONSyntaxError) -> Findings in try validate(buffer, recordingUnder: topLevelKeys) }
        }
        return try result.get()
    }
}

private struct Scanner {
    let bytes: UnsafeRawBufferPointer
    var index = 0
    var findings = JSONSyntax.Findings()
    /// The key or index of each open container's current member, to name where a `null` is.
    var path: [PathComponent] = []
    /// The outermost members whose findings are recorded (nil: all).
    let topLevelKeys: Set<String>?
    /// Whether the outermost member being read is one of ``topLevelKeys``.
    var recordingMember = true

    enum PathComponent {
        case key([UInt8])
        case index(Int)
    }

    init(bytes: UnsafeRawBufferPointer, topLevelKeys: Set<String>?) {
        self.bytes = bytes
        self.topLevelKeys = topLevelKeys
    }

    /// Whether a finding here is recorded.
    var records: Bool {
        guard case .key? = path.first else { return true }
        return recordingMember
    }

    mutating func document() throws(JSONSyntaxError) {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw JSONSyntaxError(.byteOrderMark, at: 0)
        }
        skipWhitespace()
        guard index < bytes.count else { throw JSONSyntaxError(.empty, at: index) }
        try value()
        skipWhitespace()
        guard index == bytes.count else { throw JSONSyntaxError(.trailingContent, at: index) }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func peek() throws(JSONSyntaxError) -> UInt8 {
        guard index < bytes.count else { throw JSONSyntaxError(.unexpectedEnd, at: index) }
        return bytes[index]
    }

    private mutating func value() throws(JSONSyntaxError) {
        switch try peek() {
        case UInt8(ascii: "{"): try object()
        case UInt8(ascii: "["): try array()
        case UInt8(ascii: "\""): _ = try string(keepingBytes: false)
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"):
            try literal("null")
            if records { findings.nulls.append(place()) }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw JSONSyntaxError(.unexpectedCharacter, at: index)
        }
    }

    private mutating func enter() throws(JSONSyntaxError) {
        guard path.count < JSONSyntax.maximumDepth else { throw JSONSyntaxError(.tooDeep, at: index) }
        index += 1
        skipWhitespace()
    }

    private mutating func object() throws(JSONSyntaxError) {
        try enter()
        if try peek() == UInt8(ascii: "}") {
            index += 1
            return
        }
        var keys = Set<[UInt8]>()
        path.append(.key([]))
        while true {
            let keyStart = index
            guard try peek() == UInt8(ascii: "\"") else {
                let afterComma = !keys.isEmpty && bytes[index] == UInt8(ascii: "}")
                throw JSONSyntaxError(afterComma ? .trailingComma : .unexpectedCharacter, at: index)
            }
            let key = try string(keepingBytes: true)
            guard keys.insert(key).inserted else {
                throw JSONSyntaxError(.duplicateKey(String(decoding: key, as: UTF8.self)), at: keyStart)
            }
            path[path.count - 1] = .key(key)
            if path.count == 1, let topLevelKeys { recordingMember = topLevelKeys.contains(String(decoding: key, as: UTF8.self)) }
            skipWhitespace()
            guard try peek() == UInt8(ascii: ":") else { throw JSONSyntaxError(.unexpectedCharacter, at: index) }
            index += 1
            skipWhitespace()
            try value()
            skipWhitespace()
            switch try peek() {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                index += 1
                path.removeLast()
                return
            default: throw JSONSyntaxError(.unexpectedCharacter, at: index)
            }
        }
    }

    private mutating func array() throws(JSONSyntaxError) {
        try enter()
        if try peek() == UInt8(ascii: "]") {
            index += 1
            return
        }
        path.append(.index(0))
        var count = 0
        while true {
            if try peek() == UInt8(ascii: "]") { throw JSONSyntaxError(.trailingComma, at: index) }
            path[path.count - 1] = .index(count)
            try value()
            count += 1
            skipWhitespace()
            switch try peek() {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case UInt8(ascii: "]"):
                index += 1
                path.removeLast()
                return
            default: throw JSONSyntaxError(.unexpectedCharacter, at: index)
            }
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let start = index
        for offset in 0..<word.utf8CodeUnitCount {
            guard index < bytes.count else { throw JSONSyntaxError(.unexpectedEnd, at: index) }
            guard bytes[index] == word.utf8Start[offset] else { throw JSONSyntaxError(.unexpectedCharacter, at: start) }
            index += 1
        }
    }

    private mutating func number() throws(JSONSyntaxError) {
        let start = index
        defer {
            if records, !Self.isInt64(bytes[start..<index]) { findings.nonIntegers.append(place()) }
        }
        func digits(_ scanner: inout Scanner) -> Int {
            let first = scanner.index
            while scanner.index < scanner.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(scanner.bytes[scanner.index]) {
                scanner.index += 1
            }
            return scanner.index - first
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw JSONSyntaxError(.unexpectedEnd, at: index) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if digits(&self) == 0 {
            throw JSONSyntaxError(.invalidNumber, at: start)
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { throw JSONSyntaxError(.invalidNumber, at: start) }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw JSONSyntaxError(.invalidNumber, at: start) }
        }
        // `01`, `1.5.2`, `2x`: a number runs into something that cannot follow a value.
        if index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) || bytes[index] == UInt8(ascii: ".") {
            throw JSONSyntaxError(.invalidNumber, at: start)
        }
    }

    /// Whether a valid JSON number is an integer in -2⁶³…2⁶³-1, written without fraction or exponent.
    private static func isInt64(_ number: Slice<UnsafeRawBufferPointer>) -> Bool {
        let negative = number.first == UInt8(ascii: "-")
        let digits = negative ? number.dropFirst() : number
        guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return false }
        let limit = Array((negative ? "9223372036854775808" : "9223372036854775807").utf8)
        if digits.count != limit.count { return digits.count < limit.count }
        return !digits.lexicographicallyPrecedes(limit) ? digits.elementsEqual(limit) : true
    }

    /// Scans a string; for a key, returns its unescaped UTF-8 so that `"a"` and `"\u0061"`
    /// count as the same key.
    private mutating func string(keepingBytes keep: Bool) throws(JSONSyntaxError) -> [UInt8] {
        index += 1
        var kept: [UInt8] = []
        while true {
            guard index < bytes.count else { throw JSONSyntaxError(.unexpectedEnd, at: index) }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return kept
            case UInt8(ascii: "\\"):
                let scalar = try escape()
                if keep { kept.append(contentsOf: UTF8.encode(scalar)!) }
            case 0x00..<0x20:
                throw JSONSyntaxError(.controlCharacter, at: index)
            case 0x20..<0x80:
                if keep { kept.append(byte) }
                index += 1
            default:
                let start = index
                try multiByteScalar()
                if keep { kept.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<index])) }
            }
        }
    }

    /// One escape after a backslash, as the scalar it stands for.
    private mutating func escape() throws(JSONSyntaxError) -> Unicode.Scalar {
        let start = index
        index += 1
        guard index < bytes.count else { throw JSONSyntaxError(.unexpectedEnd, at: index) }
        let letter = bytes[index]
        index += 1
        switch letter {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try hexUnit(escapeStart: start)
            switch unit {
            case 0xD800..<0xDC00:
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw JSONSyntaxError(.unpairedSurrogate, at: start)
                }
                index += 2
                let low = try hexUnit(escapeStart: start)
                guard (0xDC00..<0xE000).contains(low) else { throw JSONSyntaxError(.unpairedSurrogate, at: start) }
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
            case 0xDC00..<0xE000:
                throw JSONSyntaxError(.unpairedSurrogate, at: start)
            default:
                return Unicode.Scalar(unit)!
            }
        default:
            throw JSONSyntaxError(.invalidEscape, at: start)
        }
    }

    private mutating func hexUnit(escapeStart: Int) throws(JSONSyntaxError) -> UInt32 {
        var unit: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw JSONSyntaxError(.unexpectedEnd, at: index) }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONSyntaxError(.invalidEscape, at: escapeStart)
            }
            unit = unit << 4 | UInt32(digit)
            index += 1
        }
        return unit
    }

    /// One well-formed UTF-8 sequence of two to four bytes (the Unicode Standard's table 3-7:
    /// no overlong forms, no surrogates, nothing above U+10FFFF).
    private mutating func multiByteScalar() throws(JSONSyntaxError) {
        let start = index
        let lead = bytes[index]
        let count: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: count = 2
        case 0xE0: count = 3; secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: count = 3
        case 0xED: count = 3; secondRange = 0x80...0x9F
        case 0xF0: count = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: count = 4
        case 0xF4: count = 4; secondRange = 0x80...0x8F
        default: throw JSONSyntaxError(.invalidUTF8, at: start)
        }
        guard index + count <= bytes.count else { throw JSONSyntaxError(.invalidUTF8, at: start) }
        guard secondRange.contains(bytes[index + 1]) else { throw JSONSyntaxError(.invalidUTF8, at: start) }
        for offset in 2..<max(count, 2) where !(0x80...0xBF).contains(bytes[index + offset]) {
            throw JSONSyntaxError(.invalidUTF8, at: start)
        }
        index += count
    }

    private func place() -> JSONSyntax.Place {
        guard case .key(let key)? = path.first else { return JSONSyntax.Place(path: describePath(), topLevelKey: nil) }
        return JSONSyntax.Place(path: describePath(), topLevelKey: Self.name(key))
    }

    private func describePath() -> String {
        var text = ""
        for component in path {
            switch component {
            case .key(let key): text += (text.isEmpty ? "" : ".") + Self.name(key)
            case .index(let position): text += "[\(position)]"
            }
        }
        return text
    }

    /// A key as a place names it: whole, or its first ``JSONSyntax/maximumKeyInPlace`` bytes and `…`.
    private static func name(_ key: [UInt8]) -> String {
        guard key.count > JSONSyntax.maximumKeyInPlace else { return String(decoding: key, as: UTF8.self) }
        return String(decoding: key.prefix(JSONSyntax.maximumKeyInPlace), as: UTF8.self) + "…"
    }
}
