import CaucusAuth
import CaucusCore
import Testing

/// Tokens that must be accepted, and what the verifier reads from them.
@Suite struct TokenVerifierTests {
    @Test func aMintedTokenVerifies() throws {
        let token = try Fixture.mint(role: .host, userIdentity: "user-42", sessionKey: "key-7")
        let verified = try Fixture.verifier.verify(token, sessionName: Fixture.session, now: Fixture.now)
        #expect(
            verified
                == VerifiedToken(
                    appKey: Fixture.app.key, sessionName: Fixture.session, role: .host, userIdentity: "user-42",
                    sessionKey: "key-7", issuedAt: Fixture.now, expiresAt: Fixture.now.adding(seconds: 7200)))
    }

    @Test func roleTypeZeroIsAParticipant() throws {
        let verified = try Fixture.verifier.verify(
            TokenForge.token(payload: Fixture.payload()), sessionName: Fixture.session, now: Fixture.now)
        #expect(verified.role == .participant)
        #expect(verified.userIdentity == nil)
        #expect(verified.sessionKey == nil)
    }

    @Test func aSessionNameDifferingOnlyInCaseIsAccepted() throws {
        let token = try Fixture.mint(session: "Algebra 101")
        let verified = try Fixture.verifier.verify(token, sessionName: "ALGEBRA 101", now: Fixture.now)
        #expect(verified.sessionName == "Algebra 101")
    }

    @Test func eachAppVerifiesWithItsOwnSecret() throws {
        let token = TokenForge.token(
            payload: Fixture.payload { $0["app_key"] = .string(Fixture.otherApp.key) }, secret: Fixture.otherApp.secret)
        #expect(try Fixture.verifier.verify(token, sessionName: Fixture.session, now: Fixture.now).appKey == Fixture.otherApp.key)
    }

    @Test func anIssuedAtUpToSixtySecondsAheadIsAccepted() throws {
        let token = TokenForge.token(payload: Fixture.payload { $0["iat"] = .int(Fixture.nowSeconds + 60) })
        _ = try Fixture.verifier.verify(token, sessionName: Fixture.session, now: Fixture.now)
    }

    @Test func aLifetimeOfExactlyFortyEightHoursIsAccepted() throws {
        let token = TokenForge.token(payload: Fixture.payload { $0["exp"] = .int(Fixture.nowSeconds - 10 + 48 * 3600) })
        _ = try Fixture.verifier.verify(token, sessionName: Fixture.session, now: Fixture.now)
    }

    @Test func fractionalNumericDatesAreReadToTheMillisecond() throws {
        let token = TokenForge.token(payload: Fixture.payload { $0["iat"] = .double(Double(Fixture.nowSeconds) + 0.25) })
        let verified = try Fixture.verifier.verify(token, sessionName: Fixture.session, now: Fixture.now)
        #expect(verified.issuedAt == Instant(milliseconds: Fixture.nowSeconds * 1000 + 250))
    }

    @Test func identityAndKeyAtTheirLimitsAreAccepted() throws {
        // 35 and 36 scalars, some of them outside ASCII: the limit counts scalars, not bytes.
        let identity = String(repeating: "é", count: 35)
        let key = String(repeating: "🔑", count: 36)
        let token = try Fixture.mint(userIdentity: identity, sessionKey: key)
        let verified = try Fixture.verifier.verify(token, sessionName: Fixture.session, now: Fixture.now)
        #expect(verified.userIdentity == identity)
        #expect(verified.sessionKey == key)
    }

    @Test func nullOrEmptyOptionalClaimsMeanNone() throws {
        let token = TokenForge.token(payload: Fixture.payload {
            $0["user_identity"] = .null
            $0["session_key"] = ""
        })
        let verified = try Fixture.verifier.verify(token, sessionName: Fixture.session, now: Fixture.now)
        #expect(verified.userIdentity == nil)
        #expect(verified.sessionKey == nil)
    }

    @Test func unknownClaimsAndHeaderFieldsAreIgnored() throws {
        let token = TokenForge.token(
            header: ["alg": "HS256", "typ": "JWT", "kid": "k1"],
            payload: Fixture.payload {
                $0["cloud_recording_option"] = 1
                $0["geo_regions"] = ["US", "EU"]
            })
        _ = try Fixture.verifier.verify(token, sessionName: Fixture.session, now: Fixture.now)
    }

    @Test func anAppWithAnEmptySecretIsIgnored() {
        let open = AppCredentials(key: "open", secret: "")
        let verifier = TokenVerifier(apps: [open])
        let token = TokenForge.token(payload: Fixture.payload { $0["app_key"] = "open" }, secret: "")
        let error = #expect(throws: CaucusError.self) {
            try verifier.verify(token, sessionName: Fixture.session, now: Fixture.now)
        }
        #expect(error?.code == .unknownApp)
    }
}
