import CaucusAuth
import CaucusCore
import Foundation
import Testing

/// What the minter writes, what it refuses to write, and the app credentials it signs with.
@Suite struct TokenMinterTests {
    @Test func aMintedTokenCarriesExactlyTheZoomHeaderAndPayload() throws {
        let parts = try Fixture.mint(role: .host, userIdentity: "u1").split(separator: ".")
        try #require(parts.count == 3)
        let header = try #require(TokenForge.decode(parts[0]))
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"HS256","typ":"JWT"}"#)
        let payloadJSON = try #require(TokenForge.decode(parts[1]))
        let payload = try #require(JSONSerialization.jsonObject(with: payloadJSON) as? [String: Any])
        #expect(Set(payload.keys) == ["app_key", "tpc", "role_type", "version", "iat", "exp", "user_identity"])
        #expect(payload["role_type"] as? Int == 1)
        #expect(payload["version"] as? Int == 1)
        #expect(payload["iat"] as? Int64 == Fixture.nowSeconds)
        #expect(payload["exp"] as? Int64 == Fixture.nowSeconds + 7200)
        #expect(payload["user_identity"] as? String == "u1")
    }

    /// A console host token's link generation round-trips as `caucus_host_link`; other tokens
    /// leave the claim out (the Zoom payload, exactly).
    @Test func aHostLinkGenerationRoundTrips() throws {
        for generation in [0, 3, 1_000_000_000] {
            let token = try TokenMinter.mint(
                app: Fixture.app, sessionName: Fixture.session, role: .host, issuedAt: Fixture.now, hostLinkGeneration: generation)
            let verified = try Fixture.verifier.verify(token, sessionName: Fixture.session, now: Fixture.now)
            #expect(verified.hostLinkGeneration == generation)
        }
        let plain = try Fixture.verifier.verify(try Fixture.mint(role: .host), sessionName: Fixture.session, now: Fixture.now)
        #expect(plain.hostLinkGeneration == nil)
        for refused in [-1, 1_000_000_001] {
            #expect(throws: CaucusError.self) {
                try TokenMinter.mint(app: Fixture.app, sessionName: Fixture.session, role: .host, issuedAt: Fixture.now, hostLinkGeneration: refused)
            }
        }
    }

    @Test func theIssueTimeIsRoundedDownToTheSecond() throws {
        let token = try Fixture.mint(issuedAt: Instant(milliseconds: Fixture.nowSeconds * 1000 + 999))
        let verified = try Fixture.verifier.verify(token, sessionName: Fixture.session, now: Fixture.now)
        #expect(verified.issuedAt == Fixture.now)
    }

    @Test func theMinterRefusesTokensTheVerifierWouldRefuse() {
        func code(lifetime: Int = 7200, session: String = Fixture.session, identity: String? = nil, key: String? = nil) -> CaucusError.Code? {
            do {
                _ = try TokenMinter.mint(
                    app: Fixture.app, sessionName: session, role: .participant, issuedAt: Fixture.now, lifetimeSeconds: lifetime,
                    userIdentity: identity, sessionKey: key)
                return nil
            } catch {
                return (error as? CaucusError)?.code
            }
        }
        #expect(code(lifetime: 0) == .tokenExpired)
        #expect(code(lifetime: 48 * 3600 + 1) == .tokenLifetimeTooLong)
        #expect(code(lifetime: 48 * 3600) == nil)
        #expect(code(session: " ") == .sessionNameEmpty)
        #expect(code(session: String(repeating: "s", count: 151)) == .sessionNameTooLong)
        #expect(code(identity: String(repeating: "u", count: 36)) == .userIdentityTooLong)
        #expect(code(key: String(repeating: "k", count: 37)) == .sessionKeyTooLong)
    }

    @Test func credentialsWithoutLimitsDecodeWithTheStandardOnes() throws {
        let app = try JSONDecoder().decode(AppCredentials.self, from: Data(#"{"key": "dev", "secret": "shh"}"#.utf8))
        #expect(app == AppCredentials(key: "dev", secret: "shh"))
        #expect(app.limits == .standard)
        #expect(AppCredentials.developmentFileName == "development-app.json")
    }

    @Test func credentialsRoundTripThroughJSON() throws {
        var limits = SessionLimits.standard
        limits.maxUserIdentityLength = 12
        let app = AppCredentials(key: "k", secret: "s", limits: limits)
        #expect(try JSONDecoder().decode(AppCredentials.self, from: JSONEncoder().encode(app)) == app)
    }

    @Test func credentialsNeverPrintTheirSecret() {
        #expect(!"\(Fixture.app)".contains(Fixture.app.secret))
        #expect(!String(reflecting: Fixture.app).contains(Fixture.app.secret))
    }
}
