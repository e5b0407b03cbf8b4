import CaucusAuth
import CaucusCore
import Testing

/// Tokens refused for who signed them and how: algorithm, app, signature.
@Suite struct TokenRefusalTests {
    @Test func aWrongSecretIsRefused() {
        let token = TokenForge.token(payload: Fixture.payload(), secret: "not-the-secret-" + Fixture.app.secret)
        expectRefusal(token, .tokenSignatureInvalid)
    }

    @Test func anotherAppsSecretIsRefused() {
        let token = TokenForge.token(payload: Fixture.payload(), secret: Fixture.otherApp.secret)
        expectRefusal(token, .tokenSignatureInvalid)
    }

    @Test func aTamperedPayloadIsRefused() throws {
        let parts = try Fixture.mint().split(separator: ".")
        let forged = TokenForge.encode(TokenForge.json(Fixture.payload { $0["role_type"] = 1 }))
        expectRefusal([parts[0], Substring(forged), parts[2]].joined(separator: "."), .tokenSignatureInvalid)
    }

    @Test func algNoneWithAnEmptySignatureIsRefused() {
        let token = TokenForge.raw(header: #"{"alg":"none"}"#, payload: String(decoding: TokenForge.json(Fixture.payload()), as: UTF8.self))
        #expect(token.hasSuffix("."))
        expectRefusal(token, .tokenAlgorithmRefused)
    }

    @Test(arguments: [TokenForge.Digest.sha384, .sha512])
    func otherHMACAlgorithmsWithTheRightSecretAreRefused(_ digest: TokenForge.Digest) {
        let token = TokenForge.token(header: ["alg": .string(digest.rawValue), "typ": "JWT"], payload: Fixture.payload(), digest: digest)
        expectRefusal(token, .tokenAlgorithmRefused)
    }

    @Test func anRS256HeaderIsRefused() {
        let signature = [UInt8](repeating: 0xA5, count: 256)
        let token = TokenForge.raw(
            header: #"{"alg":"RS256","typ":"JWT"}"#, payload: String(decoding: TokenForge.json(Fixture.payload()), as: UTF8.self),
            signature: signature)
        expectRefusal(token, .tokenAlgorithmRefused)
    }

    @Test(arguments: [
        ["typ": "JWT"], ["alg": "hs256"], ["alg": "HS256 "], ["alg": 256], ["alg": .null], ["alg": ["HS256"]],
    ] as [[String: JSONValue]])
    func anAlgorithmThatIsNotExactlyHS256IsRefused(_ header: [String: JSONValue]) {
        // Signed correctly with HS256, so only the header's claim is at fault.
        expectRefusal(TokenForge.token(header: header, payload: Fixture.payload()), .tokenAlgorithmRefused)
    }

    @Test func aCriticalHeaderExtensionIsRefused() {
        let token = TokenForge.token(header: ["alg": "HS256", "crit": ["b64"], "b64": false], payload: Fixture.payload())
        expectRefusal(token, .tokenMalformed)
    }

    @Test func anUnknownAppIsRefused() {
        let token = TokenForge.token(payload: Fixture.payload { $0["app_key"] = "no-such-app" })
        expectRefusal(token, .unknownApp)
    }

    @Test func theAlgorithmIsJudgedBeforeTheClaims() {
        expectRefusal(TokenForge.raw(header: #"{"alg":"none"}"#, payload: "{}"), .tokenAlgorithmRefused)
    }

    @Test func theSignatureIsJudgedBeforeWhatTheClaimsSay() {
        let token = TokenForge.token(payload: Fixture.payload { $0["version"] = 2; $0["exp"] = 1 }, secret: "wrong")
        expectRefusal(token, .tokenSignatureInvalid)
    }
}
