import CaucusCore
import Foundation
import Testing

/// A code is its number, on the wire and in comparisons; a number this build does not know is
/// still a code, so a newer server's refusal reaches the client intact.
@Suite struct ErrorCodeTests {
    @Test func codeEncodesAsItsNumberAndDecodesBack() throws {
        let data = try JSONEncoder().encode([CaucusError.Code.needPassword, .lectureMode])
        #expect(String(decoding: data, as: UTF8.self) == "[2010,5067]")
        let decoded = try JSONDecoder().decode([CaucusError.Code].self, from: data)
        #expect(decoded == [.needPassword, .lectureMode])
        #expect(decoded[0].name == "needPassword")
    }

    @Test func unknownNumberIsACodeNamedUnknown() throws {
        let newer = try JSONDecoder().decode(CaucusError.Code.self, from: Data("7777".utf8))
        #expect(newer.rawValue == 7777)
        #expect(newer.name == "unknown")
        #expect(!CaucusError.Code.known.contains(newer))
        // A client's switch keeps a default, so a code added later breaks nothing.
        let handled: String =
            switch newer {
            case .needPassword, .passwordWrong: "ask for the password"
            default: "show the message"
            }
        #expect(handled == "show the message")
    }

    @Test func knownCodeFromItsNumberCarriesItsName() {
        for code in CaucusError.Code.known {
            let rebuilt = CaucusError.Code(rawValue: code.rawValue)
            #expect(rebuilt == code)
            #expect(rebuilt.name == code.name)
            #expect(Set([rebuilt, code]).count == 1)
        }
    }
}
