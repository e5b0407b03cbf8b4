import CaucusAuth
import CaucusCore
import Foundation
import Testing

/// Anything that is not a JWT gets `tokenMalformed`, never a crash.
@Suite struct MalformedTokenTests {
    @Test(arguments: [
        "", ".", "..", "a.b", "a.b.c.d", "a..b.c", "not base64!.e30.", "e30=.e30.", " e30.e30.", "e30.e30.\n",
        "aGVsbG8.d29ybGQ.c2ln",  // base64 of "hello", "world": no JSON
        "W10.e30.",  // header []
        "e30.IngiCg.",  // payload "x"
        "e30.MQ.",  // payload 1
        "eyJhbGciOiJIUzI1NiJ9.eyJhIjox.",  // payload cut short
        "é.é.é", "\u{0}.\u{0}.\u{0}",
    ])
    func garbageIsMalformed(_ token: String) {
        expectRefusal(token, .tokenMalformed)
    }

    @Test func deeplyNestedJSONIsMalformed() {
        let nested = String(repeating: "[", count: 3000) + String(repeating: "]", count: 3000)
        expectRefusal(TokenForge.raw(header: nested, payload: "{}"), .tokenMalformed)
    }

    @Test func anOversizedTokenIsMalformed() {
        let token = TokenForge.token(payload: Fixture.payload { $0["padding"] = .string(String(repeating: "x", count: 9000)) })
        expectRefusal(token, .tokenMalformed)
    }

    @Test func aPaddedSignatureIsMalformed() throws {
        expectRefusal(try Fixture.mint() + "=", .tokenMalformed)
    }

    @Test func aSignatureSpelledWithNonZeroSpareBitsIsMalformed() throws {
        // An HS256 signature is 43 characters; the last carries 2 spare bits. A lenient decoder
        // would read this spelling as the same signature and accept a token that was altered.
        let token = try Fixture.mint()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let last = try #require(alphabet.firstIndex(of: token.last!))
        let respelled = String(token.dropLast()) + String(alphabet[last ^ 1])
        #expect(TokenForge.decode(respelled.split(separator: ".")[2]) == TokenForge.decode(token.split(separator: ".")[2]))
        expectRefusal(respelled, .tokenMalformed)
    }

    @Test func randomMutationsNeverCrashAndOnlyTheOriginalVerifies() throws {
        let original = try Fixture.mint(role: .host, userIdentity: "someone", sessionKey: "abc")
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ \né\u{0}")
        var random = SplitMix64(seed: 0xCA0C05)
        var refused = 0
        for _ in 0..<2_000 {
            var characters = Array(original)
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let index = Int.random(in: 0..<max(characters.count, 1), using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0 where !characters.isEmpty: characters[index] = alphabet.randomElement(using: &random)!
                case 1: characters.insert(alphabet.randomElement(using: &random)!, at: min(index, characters.count))
                default: if !characters.isEmpty { characters.remove(at: index) }
                }
            }
            let mutated = String(characters)
            do {
                _ = try Fixture.verifier.verify(mutated, sessionName: Fixture.session, now: Fixture.now)
                #expect(mutated == original, "a mutated token verified: \(mutated)")
            } catch {
                refused += 1
                #expect(mutated != original, "the original was refused: \(error)")
            }
        }
        #expect(refused > 1_900)
    }
}
