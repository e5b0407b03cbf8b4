import CaucusCore
import PropertyBased
import Testing

/// docs/protocol.md, Names: every name needs a visible character and may not hold control
/// characters, line breaks or bidirectional controls.
@Suite struct NameRuleTests {
    static let invisibleOnly = [
        "\u{200B}", "\u{200C}\u{200D}", "\u{2060}", "\u{FEFF}", "\u{0301}\u{0308}", " \u{3000} ", "\u{00A0}", "\u{00AD}",
        "\u{034F}", "\u{FE0F}", "\u{3164}", "\u{115F}\u{1160}", "\u{2800}", "\u{E0041}", "\u{200E}\u{200F}", "\u{180E}", "",
    ]
    static let forbidding: [(String, UInt32)] = [
        ("Ann\u{202E}nnA", 0x202E), ("\u{202A}x", 0x202A), ("x\u{202D}", 0x202D), ("a\u{2066}b\u{2069}", 0x2066),
        ("a\u{2069}", 0x2069), ("Ann\u{0}", 0x0), ("Ann\nBob", 0x0A), ("A\rB", 0x0D), ("A\tB", 0x09), ("A\u{1B}[31m", 0x1B),
        ("A\u{7F}", 0x7F), ("A\u{85}", 0x85), ("A\u{9F}", 0x9F), ("A\u{2028}B", 0x2028), ("A\u{2029}", 0x2029),
    ]
    static let acceptable = [
        "Ann", "Zoë", "e\u{0301}", "👩‍💻", "👨‍👩‍👧", "מרים", "علي", "A\u{200B}B", "李雷", "Dr. O'Neil", "🇫🇷", " x ", "\u{E000}",
        "e\u{200E}",
    ]

    @Test(arguments: invisibleOnly)
    func aNameWithoutAVisibleCharacterIsRefusedAsEmpty(_ name: String) {
        #expect(NameRule.check(name) == .noVisibleCharacter, "\(name.unicodeScalars.map(NameRule.describe))")
    }

    @Test(arguments: forbidding)
    func aNameWithAForbiddenCharacterIsRefusedNamingIt(_ name: String, _ scalar: UInt32) {
        #expect(NameRule.check(name) == .forbidden(Unicode.Scalar(scalar)!))
    }

    @Test(arguments: acceptable)
    func ordinaryNamesAreAccepted(_ name: String) {
        #expect(NameRule.check(name) == .acceptable, "\(name.unicodeScalars.map(NameRule.describe))")
    }

    @Test func joinsAndRenamesAreRefusedWithStableCodes() {
        var harness = Harness.session(participants: 1)
        harness.refuse(.join(JoinRequest(sessionName: "Class", userName: "\u{200B}\u{200B}")), by: .server, .userNameEmpty)
        harness.refuse(.join(JoinRequest(sessionName: "Class", userName: "Eve\u{202E}")), by: .server, .nameCharacterForbidden)
        harness.refuse(.join(JoinRequest(sessionName: "Class", userName: "Eve\nAdmin")), by: .server, .nameCharacterForbidden)
        harness.refuse(.rename(UserID(2), to: "\u{FEFF}"), by: UserID(1), .userNameEmpty)
        harness.refuse(.rename(UserID(2), to: "x\u{0}"), by: UserID(1), .nameCharacterForbidden)
        harness.refuse(.addToPreList(["Red", "\u{2066}Blue"]), by: UserID(1), .nameCharacterForbidden)
        harness.refuse(.addToPreList(["\u{200D}"]), by: UserID(1), .roomNameEmpty)
        harness.perform(.rename(UserID(2), to: "Zoë 👩‍💻"), by: UserID(1))

        let fresh = Harness()
        fresh.refuse(.join(JoinRequest(sessionName: "\u{2060}", userName: "Ann")), by: .server, .sessionNameEmpty)
        fresh.refuse(.join(JoinRequest(sessionName: "Class\u{85}", userName: "Ann")), by: .server, .nameCharacterForbidden)
    }

    @Test func theMessageNamesTheCharacter() throws {
        var harness = Harness()
        do {
            _ = try harness.state.decide(
                .join(JoinRequest(sessionName: "Class", userName: "Eve\u{202E}")), by: .server, at: harness.now, entropy: 1)
            Issue.record("accepted")
        } catch {
            #expect(error.message.contains("U+202E"), "\(error.message)")
        }
        harness.join("Ann")
    }

    /// Scalars from every class the rule distinguishes, and plain letters.
    static let pieces: [Unicode.Scalar] = [
        "a", "Z", "é", "ß", "李", "😀", "1", " ", "\u{00A0}", "\u{3000}", "\u{200B}", "\u{200C}", "\u{200D}", "\u{2060}", "\u{FEFF}",
        "\u{0301}", "\u{20DD}", "\u{0903}", "\u{202A}", "\u{202E}", "\u{2066}", "\u{2069}", "\u{200E}", "\u{0}", "\n", "\t", "\u{7F}",
        "\u{85}", "\u{2028}", "\u{2800}", "\u{3164}", "\u{FE0F}", "\u{E0001}", "\u{0378}", "\u{E000}", "\u{00AD}",
    ]

    @Test func anyAcceptedNameHasAVisibleCharacterAndNoneOfTheRefusedClasses() async {
        let names = Gen.int(in: 0...(Self.pieces.count - 1)).array(of: 0...6)
        await propertyCheck(count: 2_000, input: names) { indices in
            var name = ""
            for index in indices { name.unicodeScalars.append(Self.pieces[index]) }
            let scalars = Array(name.unicodeScalars)
            switch NameRule.check(name) {
            case .acceptable:
                #expect(scalars.contains(where: NameRule.isVisible))
                #expect(!scalars.contains(where: NameRule.isForbidden))
                for scalar in scalars {
                    #expect(scalar.properties.generalCategory != .control)
                    #expect(!(0x202A...0x202E).contains(scalar.value) && !(0x2066...0x2069).contains(scalar.value))
                    #expect(scalar.value != 0x2028 && scalar.value != 0x2029)
                }
                let blank = name.allSatisfy { $0.isWhitespace }
                #expect(!blank)
            case .noVisibleCharacter:
                #expect(!scalars.contains(where: NameRule.isVisible))
            case .forbidden(let scalar):
                #expect(scalars.contains(scalar) && NameRule.isForbidden(scalar))
            }
        }
    }
}
