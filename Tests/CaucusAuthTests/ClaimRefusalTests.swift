import CaucusAuth
import CaucusCore
import Testing

/// Correctly signed tokens refused for what their claims say.
@Suite struct ClaimRefusalTests {
    @Test func anExpiredTokenIsRefused() throws {
        let token = try Fixture.mint(issuedAt: Fixture.now.adding(seconds: -7200))
        expectRefusal(token, .tokenExpired)
    }

    @Test func aTokenIsExpiredAtItsExpItself() throws {
        let token = try Fixture.mint()
        expectRefusal(token, .tokenExpired, now: Fixture.now.adding(seconds: 7200))
    }

    @Test func aTokenIssuedAnHourAheadIsNotYetValid() {
        let token = TokenForge.token(payload: Fixture.payload {
            $0["iat"] = .int(Fixture.nowSeconds + 3600)
            $0["exp"] = .int(Fixture.nowSeconds + 3 * 3600)
        })
        expectRefusal(token, .tokenNotYetValid)
    }

    @Test func aTokenIssuedSixtyOneSecondsAheadIsNotYetValid() {
        expectRefusal(TokenForge.token(payload: Fixture.payload { $0["iat"] = .int(Fixture.nowSeconds + 61) }), .tokenNotYetValid)
    }

    @Test func aLifetimeOverFortyEightHoursIsRefused() {
        let token = TokenForge.token(payload: Fixture.payload { $0["exp"] = .int(Fixture.nowSeconds - 10 + 48 * 3600 + 1) })
        expectRefusal(token, .tokenLifetimeTooLong)
    }

    @Test func aTokenForAnotherSessionIsRefused() throws {
        expectRefusal(try Fixture.mint(session: "Algebra 102"), .tokenSessionMismatch)
    }

    @Test func roleTypeTwoIsRefused() {
        expectRefusal(TokenForge.token(payload: Fixture.payload { $0["role_type"] = 2 }), .invalidRoleType)
    }

    @Test(arguments: [-1, 0.5] as [JSONValue])
    func otherRoleTypesAreRefused(_ roleType: JSONValue) {
        expectRefusal(TokenForge.token(payload: Fixture.payload { $0["role_type"] = roleType }), .invalidRoleType)
    }

    @Test(arguments: [2, 0, 1.5] as [JSONValue])
    func aVersionOtherThanOneIsRefused(_ version: JSONValue) {
        expectRefusal(TokenForge.token(payload: Fixture.payload { $0["version"] = version }), .invalidTokenVersion)
    }

    @Test(arguments: ["app_key", "tpc", "role_type", "version", "iat", "exp"])
    func eachRequiredClaimMustBePresent(_ claim: String) {
        expectRefusal(TokenForge.token(payload: Fixture.payload { $0[claim] = nil }), .tokenMissingClaim)
        expectRefusal(TokenForge.token(payload: Fixture.payload { $0[claim] = .null }), .tokenMissingClaim)
    }

    @Test(arguments: [
        ("app_key", 7), ("tpc", ["Algebra 101"]), ("role_type", "1"), ("role_type", true), ("version", "1"),
        ("iat", "1750000000"), ("exp", ["n": 1]), ("exp", -5), ("iat", 1e300), ("user_identity", 12), ("session_key", false),
        ("caucus_host_link", "1"), ("caucus_host_link", -1), ("caucus_host_link", 1.5), ("caucus_host_link", 1e12),
    ] as [(String, JSONValue)])
    func aClaimOfTheWrongTypeIsRefused(_ claim: String, _ value: JSONValue) {
        expectRefusal(TokenForge.token(payload: Fixture.payload { $0[claim] = value }), .tokenMissingClaim)
    }

    @Test func aUserIdentityOfThirtySixCharactersIsRefused() {
        expectRefusal(Fixture.mintUnchecked(userIdentity: String(repeating: "u", count: 36)), .userIdentityTooLong)
    }

    @Test func aSessionKeyOfThirtySevenCharactersIsRefused() {
        expectRefusal(Fixture.mintUnchecked(sessionKey: String(repeating: "k", count: 37)), .sessionKeyTooLong)
    }

    @Test func lengthsFollowTheAppsLimits() throws {
        var limits = SessionLimits.standard
        limits.maxUserIdentityLength = 4
        let app = AppCredentials(key: "strict", secret: Fixture.app.secret, limits: limits)
        let token = TokenForge.token(payload: Fixture.payload {
            $0["app_key"] = "strict"
            $0["user_identity"] = "abcde"
        })
        let error = #expect(throws: CaucusError.self) {
            try TokenVerifier(apps: [app]).verify(token, sessionName: Fixture.session, now: Fixture.now)
        }
        #expect(error?.code == .userIdentityTooLong)
    }

    @Test func timesAreJudgedBeforeTheSession() throws {
        expectRefusal(try Fixture.mint(session: "elsewhere", issuedAt: Fixture.now.adding(seconds: -7200)), .tokenExpired)
    }
}

extension Fixture {
    /// A token with optional claims the minter would refuse to put in.
    static func mintUnchecked(userIdentity: String? = nil, sessionKey: String? = nil) -> String {
        TokenForge.token(payload: payload {
            if let userIdentity { $0["user_identity"] = .string(userIdentity) }
            if let sessionKey { $0["session_key"] = .string(sessionKey) }
        })
    }
}
