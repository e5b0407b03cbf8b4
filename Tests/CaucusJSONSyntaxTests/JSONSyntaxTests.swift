import CaucusJSONSyntax
import Testing

@Suite struct JSONSyntaxTests {
    static func check(_ text: String) -> JSONSyntaxError? {
        check(Array(text.utf8))
    }

    static func check(_ bytes: [UInt8]) -> JSONSyntaxError? {
        do {
            try JSONSyntax.validate(bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        #"{"id":1,"op":"ping"}"#, " { } ", "[]", "0", "-0", "1.5e-3", "2E+10", "-12.25", "\"\"", "true", "false", "null",
        #"{"a":[1,2,{"b":null}],"c":"\u00e9\ud83d\ude00\n\t\"\\\/"}"#, "{\"é\":\"😀\"}", " \r\n\t[ [ ] , { } ] ",
        #"{"a":1,"A":2}"#, #"{"a":{"a":{"a":1}}}"#, #"[{"a":1},{"a":1}]"#,
    ])
    func acceptsStrictJSON(_ text: String) {
        #expect(Self.check(text) == nil, "\(text)")
    }

    @Test(arguments: [
        ("", JSONSyntaxError.Reason.empty, 0), ("   ", .empty, 3),
        ("\u{FEFF}{}", .byteOrderMark, 0),
        (#"{"id":1,"op":"ping","op":"chat"}"#, .duplicateKey("op"), 20),
        (#"{"alg":"HS256","\u0061lg":"none"}"#, .duplicateKey("alg"), 15),
        (#"{"s":{"x":1,"x":2}}"#, .duplicateKey("x"), 12),
        (#"{"id":1,}"#, .trailingComma, 8), ("[1,2,]", .trailingComma, 5), ("[1,]", .trailingComma, 3),
        ("{\"text\":\"a\u{0A}b\"}", .controlCharacter, 10), ("\"\u{00}\"", .controlCharacter, 1), ("\"\u{1F}\"", .controlCharacter, 1),
        (#""\x""#, .invalidEscape, 1), (#""\u12g4""#, .invalidEscape, 1),
        (#""\ud83d""#, .unpairedSurrogate, 1), (#""\ude00""#, .unpairedSurrogate, 1), (#""\ud83d\u0041""#, .unpairedSurrogate, 1),
        ("01", .invalidNumber, 0), ("1.", .invalidNumber, 0), (".5", .unexpectedCharacter, 0), ("-", .unexpectedEnd, 1),
        ("1e", .invalidNumber, 0), ("+1", .unexpectedCharacter, 0), ("1.5.2", .invalidNumber, 0), ("-a", .invalidNumber, 0),
        ("{", .unexpectedEnd, 1), (#"{"a""#, .unexpectedEnd, 4), (#"{"a":"#, .unexpectedEnd, 5), (#""abc"#, .unexpectedEnd, 4),
        ("{}{}", .trailingContent, 2), ("1 2", .trailingContent, 2), ("nul", .unexpectedEnd, 3), ("nulx", .unexpectedCharacter, 0),
        ("{a:1}", .unexpectedCharacter, 1), ("{'a':1}", .unexpectedCharacter, 1), (#"{"a" 1}"#, .unexpectedCharacter, 5),
        ("[1 2]", .unexpectedCharacter, 3), ("{,}", .unexpectedCharacter, 1), ("[,]", .unexpectedCharacter, 1),
        ("NaN", .unexpectedCharacter, 0), ("Infinity", .unexpectedCharacter, 0), ("// c\n{}", .unexpectedCharacter, 0),
    ] as [(String, JSONSyntaxError.Reason, Int)])
    func refusesWhatRFC8259DoesNotAllow(_ text: String, _ reason: JSONSyntaxError.Reason, _ offset: Int) {
        #expect(Self.check(text) == JSONSyntaxError(reason, at: offset), "\(text)")
    }

    @Test(arguments: [
        [0x22, 0xC3, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xE0, 0x80, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22],
        [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], [0x22, 0xFF, 0x22], [0x22, 0x80, 0x22],
        [0x22, 0xE2, 0x82, 0x22],
    ] as [[UInt8]])
    func refusesMalformedUTF8InStrings(_ bytes: [UInt8]) {
        #expect(Self.check(bytes) == JSONSyntaxError(.invalidUTF8, at: 1))
    }

    @Test func refusesBytesAboveASCIIOutsideStrings() {
        #expect(Self.check([0x7B, 0xC3, 0xA9, 0x7D]) == JSONSyntaxError(.unexpectedCharacter, at: 1))
    }

    @Test func refusesNestingDeeperThanTheLimitWithoutExhaustingTheStack() {
        let deep = String(repeating: "[", count: JSONSyntax.maximumDepth) + String(repeating: "]", count: JSONSyntax.maximumDepth)
        #expect(Self.check(deep) == nil)
        let tooDeep = String(repeating: "[", count: 100_000)
        #expect(Self.check(tooDeep)?.reason == .tooDeep)
        let deepObjects = String(repeating: #"{"a":"#, count: JSONSyntax.maximumDepth + 1) + "1" + String(repeating: "}", count: JSONSyntax.maximumDepth + 1)
        #expect(Self.check(deepObjects)?.reason == .tooDeep)
    }

    @Test(arguments: [
        (#"{"id":1,"op":"stop","countdownSeconds":null}"#, "countdownSeconds"),
        (#"{"settings":{"roomCreators":null}}"#, "settings.roomCreators"),
        (#"{"users":[1,null]}"#, "users[1]"), ("null", ""), (#"{"a":1,"b":{"c":[[], [0, null]]},"d":null}"#, "b.c[1][1]"),
        (#"{"id":1,"op":"ping"}"#, nil), (#"{"a":"null"}"#, nil),
    ] as [(String, String?)])
    func findsTheFirstNull(_ text: String, _ path: String?) throws {
        #expect(try JSONSyntax.validate(Array(text.utf8)).firstNull == path)
    }

    @Test(arguments: [
        (#"{"id":1.5}"#, "id"), (#"{"a":[1,2,1e2]}"#, "a[2]"), (#"{"n":9223372036854775808}"#, "n"), (#"{"n":-9223372036854775809}"#, "n"),
        (#"{"n":1.0}"#, "n"), (#"{"n":9223372036854775807,"m":-9223372036854775808,"z":-0}"#, nil), (#"{"s":"1.5"}"#, nil),
        (#"{"n":99999999999999999999999}"#, "n"),
    ] as [(String, String?)])
    func findsTheFirstNumberThatIsNotA64BitInteger(_ text: String, _ path: String?) throws {
        #expect(try JSONSyntax.validate(Array(text.utf8)).firstNonInteger == path, "\(text)")
    }

    /// A reader that reads some members only has the findings under them (and outside any
    /// member) recorded: a frame of thousands of nulls under a key it ignores keeps none.
    @Test func onlyTheFindingsUnderTheMembersAReaderReadsAreRecorded() throws {
        let text = #"{"id":1,"ignored":[null,1.5,{"x":null}],"settings":{"a":null,"b":2.5},"op":"ping"}"#
        let all = try JSONSyntax.validate(Array(text.utf8))
        #expect(all.nulls.map(\.path) == ["ignored[0]", "ignored[2].x", "settings.a"])
        let read = try JSONSyntax.validate(Array(text.utf8), recordingUnder: ["id", "op", "settings"])
        #expect(read.nulls.map(\.path) == ["settings.a"] && read.nonIntegers.map(\.path) == ["settings.b"])
        #expect(try JSONSyntax.validate(Array("[null, 1.5]".utf8), recordingUnder: []).nulls.map(\.path) == ["[0]"])
        let none = try JSONSyntax.validate(Array(text.utf8), recordingUnder: [])
        #expect(none.nulls.isEmpty && none.nonIntegers.isEmpty)

        let many = "{\"" + String(repeating: "k", count: 32_000) + "\":[" + Array(repeating: "null", count: 6_000).joined(separator: ",") + "]}"
        let ignored = try JSONSyntax.validate(Array(many.utf8), recordingUnder: ["id", "op"])
        #expect(ignored.nulls.isEmpty && ignored.nonIntegers.isEmpty)
    }

    /// A place names a long key by its first bytes: a place's strings stay short whatever the keys.
    @Test func aPlaceNamesALongKeyByItsFirstBytes() throws {
        let key = String(repeating: "k", count: 32_000)
        let text = #"{"settings":{""# + key + #"":[null]}}"#
        let place = try #require(try JSONSyntax.validate(Array(text.utf8)).nulls.first)
        #expect(place.path == "settings." + String(repeating: "k", count: JSONSyntax.maximumKeyInPlace) + "…[0]")
        let top = try #require(try JSONSyntax.validate(Array((#"{""# + key + #"":null}"#).utf8)).nulls.first)
        #expect(top.topLevelKey == String(repeating: "k", count: JSONSyntax.maximumKeyInPlace) + "…")
    }

    @Test func describesTheProblemInAClientsWords() {
        #expect(JSONSyntaxError(.duplicateKey("op"), at: 20).description == #"the key "op" appears twice in one object (byte 20)"#)
        #expect(JSONSyntaxError(.byteOrderMark, at: 0).description == "it starts with a byte-order mark (byte 0)")
    }
}
