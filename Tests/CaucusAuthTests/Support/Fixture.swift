import CaucusAuth
import CaucusCore
import Testing

/// One app, one session and one moment that every test shares.
enum Fixture {
    // 64 bytes: as long as an HS512 digest, which jwt-kit insists on for its keys.
    static let app = AppCredentials(key: "caucus-test-app", secret: "s3cr3t-0123456789abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJKLMNOPQRST")
    static let otherApp = AppCredentials(key: "other-app", secret: "another-secret-of-sixty-four-bytes-0123456789-0123456789-0123456")
    static let verifier = TokenVerifier(apps: [app, otherApp])
    static let session = "Algebra 101"
    static let nowSeconds: Int64 = 1_750_000_000
    static let now = Instant(seconds: nowSeconds)

    /// A valid payload issued ten seconds ago, living two hours; `change` makes it invalid.
    static func payload(_ change: (inout [String: JSONValue]) -> Void = { _ in }) -> [String: JSONValue] {
        var claims: [String: JSONValue] = [
            "app_key": .string(app.key), "tpc": .string(session), "role_type": 0, "version": 1,
            "iat": .int(nowSeconds - 10), "exp": .int(nowSeconds + 7200),
        ]
        change(&claims)
        return claims
    }

    static func mint(
        role: RoleClaim = .participant, session: String = session, issuedAt: Instant = now,
        userIdentity: String? = nil, sessionKey: String? = nil
    ) throws -> String {
        try TokenMinter.mint(
            app: app, sessionName: session, role: role, issuedAt: issuedAt, userIdentity: userIdentity, sessionKey: sessionKey)
    }
}

/// Expects `token` to be refused with `code` when joining `session` at `now`.
func expectRefusal(
    _ token: String, _ code: CaucusError.Code, session: String = Fixture.session, now: Instant = Fixture.now,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let error = #expect(throws: CaucusError.self, sourceLocation: sourceLocation) {
        try Fixture.verifier.verify(token, sessionName: session, now: now)
    }
    #expect(error?.code == code, "\(error?.description ?? "no error")", sourceLocation: sourceLocation)
}
