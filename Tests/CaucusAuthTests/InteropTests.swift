import CaucusAuth
import CaucusCore
import Foundation
import JWTKit
import Testing

/// Tokens from standard JWT libraries verify unchanged, and theirs accept ours.
@Suite struct InteropTests {
    static let pyJWTMissing = "PyJWT is not installed (pip install pyjwt); skipping the PyJWT interoperability check"

    @Test(.enabled(if: Python.hasPyJWT, Comment(rawValue: pyJWTMissing)))
    func aTokenMintedByPyJWTVerifies() async throws {
        let payload = Fixture.payload {
            $0["role_type"] = 1
            $0["user_identity"] = "py-user"
            $0["session_key"] = "py-key"
        }
        let script = #"import jwt, json, sys; print(jwt.encode(json.loads(sys.argv[1]), sys.argv[2], algorithm="HS256"))"#
        let result = try await Python.run(script, arguments: [String(decoding: TokenForge.json(payload), as: UTF8.self), Fixture.app.secret])
        try #require(result.status == 0, "python3 failed: \(result.errors)")
        let verified = try Fixture.verifier.verify(result.output, sessionName: Fixture.session, now: Fixture.now)
        #expect(verified.role == .host)
        #expect(verified.userIdentity == "py-user")
        #expect(verified.sessionKey == "py-key")
        #expect(verified.issuedAt == Instant(seconds: Fixture.nowSeconds - 10))
    }

    @Test(.enabled(if: Python.hasPyJWT, Comment(rawValue: pyJWTMissing)))
    func pyJWTAcceptsAMintedToken() async throws {
        let now = Instant(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        let token = try TokenMinter.mint(app: Fixture.app, sessionName: Fixture.session, role: .host, issuedAt: now, userIdentity: "me")
        let script = #"import jwt, json, sys; print(json.dumps(jwt.decode(sys.argv[1], sys.argv[2], algorithms=["HS256"]), sort_keys=True))"#
        let result = try await Python.run(script, arguments: [token, Fixture.app.secret])
        try #require(result.status == 0, "PyJWT refused the token: \(result.errors)")
        let decoded = try #require(JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(decoded["app_key"] as? String == Fixture.app.key)
        #expect(decoded["tpc"] as? String == Fixture.session)
        #expect(decoded["role_type"] as? Int == 1)
        #expect(decoded["version"] as? Int == 1)
        #expect(decoded["user_identity"] as? String == "me")
    }

    @Test func aTokenSignedByJWTKitVerifies() async throws {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: Fixture.app.secret), digestAlgorithm: .sha256)
        let token = try await keys.sign(
            ZoomPayload(app_key: Fixture.app.key, tpc: Fixture.session, role_type: 0, version: 1, iat: Fixture.nowSeconds, exp: Fixture.nowSeconds + 60))
        let verified = try Fixture.verifier.verify(token, sessionName: Fixture.session, now: Fixture.now)
        #expect(verified.role == .participant)
        #expect(verified.expiresAt == Fixture.now.adding(seconds: 60))
    }

    @Test func jwtKitAcceptsAMintedToken() async throws {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: Fixture.app.secret), digestAlgorithm: .sha256)
        let token = try Fixture.mint(role: .host, sessionKey: "k")
        let payload = try await keys.verify(token, as: ZoomPayload.self)
        #expect(payload == ZoomPayload(app_key: Fixture.app.key, tpc: Fixture.session, role_type: 1, version: 1, iat: Fixture.nowSeconds, exp: Fixture.nowSeconds + 7200, session_key: "k"))
    }

    @Test func anHS512TokenFromJWTKitIsRefused() async throws {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: Fixture.app.secret), digestAlgorithm: .sha512)
        let token = try await keys.sign(
            ZoomPayload(app_key: Fixture.app.key, tpc: Fixture.session, role_type: 0, version: 1, iat: Fixture.nowSeconds, exp: Fixture.nowSeconds + 60))
        expectRefusal(token, .tokenAlgorithmRefused)
    }
}

/// The Zoom Video SDK payload as a jwt-kit user would declare it.
private struct ZoomPayload: JWTPayload, Equatable {
    var app_key: String
    var tpc: String
    var role_type: Int
    var version: Int
    var iat: Int64
    var exp: Int64
    var user_identity: String? = nil
    var session_key: String? = nil

    // The claims are judged by the verifier under test, not here.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
