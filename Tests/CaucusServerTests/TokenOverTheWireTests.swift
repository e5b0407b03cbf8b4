import CaucusProcessTestSupport
import CaucusAuth
import CaucusCore
import Foundation
import Testing

/// Every token failure reaches the client as its documented error, and the connection may
/// try again.
@Suite(.serialized) struct TokenOverTheWireTests {
    static func unsigned(_ header: String, _ payload: String, signature: String = "") -> String {
        func encode(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return encode(header) + "." + encode(payload) + "." + signature
    }

    @Test func eachTokenFailureHasItsCode() async throws {
        let server = try await TestServer.start()
        let client = try await TestClient.connect(to: server)
        let now = Instant.wallClock()
        let wrongSecret = AppCredentials(key: server.app.key, secret: "not-the-secret")
        let otherApp = AppCredentials(key: "someone-else", secret: "whatever")
        let cases: [(String, String, Int)] = [
            ("expired", try server.token(session: "Class", issuedAt: now.adding(seconds: -7200), lifetime: 3600), 2104),
            ("not yet valid", try server.token(session: "Class", issuedAt: now.adding(seconds: 3600)), 2105),
            ("longer than 48 h", try await HS256Token.sign(
                #"{"app_key":"test-app","tpc":"Class","role_type":1,"version":1,"iat":\#(now.milliseconds / 1000),"exp":\#(now.milliseconds / 1000 + 49 * 3600)}"#,
                secret: server.app.secret), 2106),
            ("wrong secret", try TokenMinter.mint(app: wrongSecret, sessionName: "Class", role: .host, issuedAt: now), 2103),
            ("alg none", Self.unsigned(#"{"alg":"none","typ":"JWT"}"#, #"{"app_key":"test-app","tpc":"Class","role_type":1,"version":1,"iat":\#(now.milliseconds / 1000),"exp":\#(now.milliseconds / 1000 + 3600)}"#), 2102),
            ("wrong tpc", try server.token(session: "Other"), 2107),
            ("unknown app", try TokenMinter.mint(app: otherApp, sessionName: "Class", role: .host, issuedAt: now), 2108),
            ("long user_identity", try await HS256Token.sign(
                #"{"app_key":"test-app","tpc":"Class","role_type":1,"version":1,"iat":\#(now.milliseconds / 1000),"exp":\#(now.milliseconds / 1000 + 3600),"user_identity":"\#(String(repeating: "i", count: 36))"}"#,
                secret: server.app.secret), 2006),
            ("long session_key", try await HS256Token.sign(
                #"{"app_key":"test-app","tpc":"Class","role_type":1,"version":1,"iat":\#(now.milliseconds / 1000),"exp":\#(now.milliseconds / 1000 + 3600),"session_key":"\#(String(repeating: "k", count: 37))"}"#,
                secret: server.app.secret), 2007),
            ("garbage", "not.a.token", 2101),
        ]
        for (name, token, code) in cases {
            let refused = try await client.refused("join", ["session": "Class", "userName": "Eve", "token": token])
            #expect(refused == code, "\(name)")
        }
        let badRole = try await HS256Token.sign(
            #"{"app_key":"test-app","tpc":"Class","role_type":2,"version":1,"iat":\#(now.milliseconds / 1000),"exp":\#(now.milliseconds / 1000 + 3600)}"#,
            secret: server.app.secret)
        #expect(try await client.refused("join", ["session": "Class", "userName": "Eve", "token": badRole]) == 2109)
        // The same connection still joins with a good token.
        try await client.join(session: "Class", userName: "Eve", token: try server.token(session: "Class", role: .host))
        #expect(await client.user == 1)
        await server.stop()
    }

    @Test func aTokenFromAStandardJWTLibraryWorks() async throws {
        guard PyJWT.isInstalled else {
            Issue.record("python3 with PyJWT is needed (.ci/run installs it)")
            return
        }
        let server = try await TestServer.start()
        let minted = try await PyJWT.mint(appKey: server.app.key, session: "Class", roleType: 1, secret: server.app.secret)
        let client = try await TestClient.connect(to: server)
        try await client.join(session: "Class", userName: "Ada", token: minted)
        #expect(await client.user == 1)
        await server.stop()
    }
}

/// Signs arbitrary payloads, for claims a minter would never produce.
enum HS256Token {
    static func sign(_ payload: String, secret: String) async throws -> String {
        let script = """
            import base64, hmac, hashlib, sys
            def b(x): return base64.urlsafe_b64encode(x).rstrip(b'=').decode()
            h = b(b'{"alg":"HS256","typ":"JWT"}'); p = b(sys.argv[1].encode())
            s = b(hmac.new(sys.argv[2].encode(), (h + '.' + p).encode(), hashlib.sha256).digest())
            print(h + '.' + p + '.' + s)
            """
        return try await Python.run(script, arguments: [payload, secret])
    }
}

/// Tokens from PyJWT, a standard JWT library.
enum PyJWT {
    static var isInstalled: Bool { (try? Python.runBlocking("import jwt", arguments: [])) != nil }

    static func mint(appKey: String, session: String, roleType: Int, secret: String) async throws -> String {
        let script = """
            import jwt, time, sys
            now = int(time.time())
            print(jwt.encode({"app_key": sys.argv[1], "tpc": sys.argv[2], "role_type": int(sys.argv[3]), "version": 1,
                              "iat": now - 30, "exp": now + 3600}, sys.argv[4], algorithm="HS256"))
            """
        return try await Python.run(script, arguments: [appKey, session, String(roleType), secret])
    }
}

enum Python {
    static func run(_ script: String, arguments: [String]) async throws -> String {
        try await offThePool { try runBlocking(script, arguments: arguments) }
    }

    static func runBlocking(_ script: String, arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestFailure("python3 failed") }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
