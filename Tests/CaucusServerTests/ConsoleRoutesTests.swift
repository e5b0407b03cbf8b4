import CaucusAuth
import CaucusCore
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The web console's routes: its files, and the development helpers that only a server on
/// its development app answers.
@Suite(.serialized) struct ConsoleRoutesTests {
    /// A server with no configured apps: it runs on its development app.
    static func developmentServer() async throws -> RunningServer {
        try await RunningServer.start(apps: [])
    }

    static func json(_ body: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]) ?? [:]
    }

    static func errorCode(_ body: String) -> Int? {
        (json(body)["error"] as? [String: Any])?["code"] as? Int
    }

    @Test func theRootAndTheBareConsolePathRedirectToTheConsole() async throws {
        let server = try await TestServer.start()
        for path in ["/", "/console"] {
            let reply = try await RawHTTP.send(port: server.port, "GET", path)
            #expect(reply.status == 302, "\(path)")
            #expect(reply.header("Location") == "/console/", "\(path)")
        }
        await server.stop()
    }

    @Test func theConsoleFilesAreServedWithTheirTypes() async throws {
        let server = try await TestServer.start()
        let page = try await RawHTTP.send(port: server.port, "GET", "/console/")
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.body.contains(#"<script type="module" src="/console/app.js">"#))
        let css = try await RawHTTP.send(port: server.port, "GET", "/console/console.css")
        #expect(css.status == 200)
        #expect(css.header("Content-Type") == "text/css; charset=utf-8")
        // The page's address may hold a link's code: never told to another page, never framed.
        for reply in [page, css] {
            #expect(reply.header("Referrer-Policy") == "no-referrer")
            #expect(reply.header("Content-Security-Policy") == "frame-ancestors 'none'")
            #expect(reply.header("X-Frame-Options") == "DENY")
            #expect(reply.header("X-Content-Type-Options") == "nosniff")
        }
        // Every module, and every module each one imports, comes as JavaScript: browsers refuse
        // an ES module of any other type.
        var modules = ["app.js"]
        var seen = Set<String>()
        let importPattern = try NSRegularExpression(pattern: #"from "\./([a-z]+\.js)""#)
        while let name = modules.popLast() {
            guard seen.insert(name).inserted else { continue }
            let reply = try await RawHTTP.send(port: server.port, "GET", "/console/\(name)")
            #expect(reply.status == 200, "\(name)")
            #expect(reply.header("Content-Type") == "text/javascript; charset=utf-8", "\(name)")
            for match in importPattern.matches(in: reply.body, range: NSRange(reply.body.startIndex..., in: reply.body)) {
                modules.append(String(reply.body[Range(match.range(at: 1), in: reply.body)!]))
            }
        }
        #expect(
            seen.isSuperset(of: [
                "app.js", "protocol.js", "state.js", "host.js", "hostrooms.js", "participant.js", "panels.js", "words.js",
                "feedback.js", "seat.js", "leave.js",
            ]))
        await server.stop()
    }

    @Test func unknownFilesAndPathsOutsideTheConsoleAre404InTheAPIsErrorForm() async throws {
        let server = try await TestServer.start()
        let targets = [
            "/console/nothing.js", "/console/../Package.swift", "/console/..%2FPackage.swift", "/console/%2e%2e/Package.swift",
            "/console/%2e%2e%2fPackage.swift", "/console/..%2f..%2fPackage.swift", "/console/assets/../../Package.swift",
            "/console/%2E%2E%5CPackage.swift", "/console/ConsoleRoutes.swift", "/Package.swift",
        ]
        for target in targets {
            let reply = try await RawHTTP.send(port: server.port, "GET", target)
            #expect(reply.status == 404, "\(target)")
            #expect(Self.errorCode(reply.body) == 1012, "\(target): \(reply.body)")
            #expect(!reply.body.contains("PackageDescription"), "\(target)")
        }
        await server.stop()
    }

    @Test func theDevelopmentHelpersAreOffWhenAppsAreConfigured() async throws {
        let server = try await TestServer.start()
        let status = try await RawHTTP.send(port: server.port, "GET", "/console/dev")
        #expect(status.status == 200)
        #expect(Self.json(status.body)["development"] as? Bool == false)
        let app = try await RawHTTP.send(port: server.port, "GET", "/console/dev/app")
        #expect(app.status == 404)
        #expect(Self.errorCode(app.body) == 1012)
        #expect(!app.body.contains(server.app.secret))
        for path in ["/console/dev/token", "/console/dev/session", "/console/dev/person"] {
            let token = try await RawHTTP.send(port: server.port, "POST", path, body: #"{"session":"Class","invite":"x"}"#)
            #expect(token.status == 404)
            #expect(Self.errorCode(token.body) == 1012)
        }
        await server.stop()
    }

    @Test func onTheDevelopmentAppTheConsoleGetsInviteCodesAndTokensOfTheirRoleButNeverTheSecret() async throws {
        let running = try await Self.developmentServer()
        let development = try #require(running.server.developmentApp)
        let status = try await RawHTTP.send(port: running.port, "GET", "/console/dev")
        #expect(Self.json(status.body)["development"] as? Bool == true)
        // The credentials are not served.
        let app = try await RawHTTP.send(port: running.port, "GET", "/console/dev/app")
        #expect(app.status == 404)
        #expect(!app.body.contains(development.secret))
        let created = try await RawHTTP.send(port: running.port, "POST", "/console/dev/session", body: #"{"session":"Studio"}"#)
        #expect(created.status == 200)
        #expect(!created.body.contains(development.secret))
        let invites = Self.json(created.body)
        let hostInvite = try #require(invites["hostInvite"] as? String)
        let participantInvite = try #require(invites["participantInvite"] as? String)
        // Before the host opens the session, a participant code gives no token (whoever joined
        // first would host it).
        let early = try await RawHTTP.send(
            port: running.port, "POST", "/console/dev/token", body: #"{"session":"Studio","invite":"\#(participantInvite)"}"#)
        #expect(early.status == 409)
        #expect(Self.errorCode(early.body) == 1022)
        let minted = try await RawHTTP.send(
            port: running.port, "POST", "/console/dev/token", body: #"{"session":"Studio","invite":"\#(hostInvite)","role":"participant"}"#)
        #expect(minted.status == 200)
        #expect(minted.header("Content-Type") == "application/json")
        #expect(Self.json(minted.body)["role"] as? String == "host")
        let token = try #require(Self.json(minted.body)["token"] as? String)
        // The token verifies as the server's own, and the session listing shows it was used.
        let client = try await TestClient.connect(url: running.webSocketURL)
        try await client.join(session: "Studio", userName: "Ada", token: token)
        #expect(await client.joinSnapshot["you"] as? Int == 1)
        // Now the participant code gives a participant token, whatever else is asked.
        let participant = Self.json(
            try await RawHTTP.send(
                port: running.port, "POST", "/console/dev/token", body: #"{"session":"Studio","invite":"\#(participantInvite)","role":"host"}"#
            ).body)
        #expect(participant["role"] as? String == "participant")
        let second = try await TestClient.connect(url: running.webSocketURL)
        try await second.join(session: "Studio", userName: "Bo", token: try #require(participant["token"] as? String))
        let users = await second.joinSnapshot["users"] as? [[String: any Sendable]] ?? []
        #expect(users.first { $0["name"] as? String == "Bo" }?["role"] as? String == "participant")
        // A running session's name gives no new host code.
        let again = try await RawHTTP.send(port: running.port, "POST", "/console/dev/session", body: #"{"session":"STUDIO"}"#)
        #expect(again.status == 409)
        #expect(Self.errorCode(again.body) == 1021)
        let sessions = try await ControlAPI(port: running.port, app: development).sessions()
        #expect(sessions.first?.string("name") == "Studio")
        #expect(sessions.first?.int("users") == 2)
        await running.stop()
    }

    @Test func aBadTokenRequestIsRefusedWithItsCode() async throws {
        let running = try await Self.developmentServer()
        let development = try #require(running.server.developmentApp)
        // A join token of the app itself is not an invite code.
        let joinToken = try TokenMinter.mint(app: development, sessionName: "Studio", role: .host, issuedAt: Instant(milliseconds: Int64(Date().timeIntervalSince1970 * 1000)), lifetimeSeconds: 3600)
        let cases: [(String, String, Int)] = [
            ("/console/dev/token", "not json", 1001),
            ("/console/dev/token", #"{"session":"Studio"}"#, 1004),
            ("/console/dev/token", #"{"session":"Studio","role":"host"}"#, 1004),
            ("/console/dev/token", #"{"session":"Studio","invite":"not a code"}"#, 1020),
            ("/console/dev/token", #"{"session":"Studio","invite":"\#(joinToken)"}"#, 1020),
            ("/console/dev/session", "not json", 1001),
            ("/console/dev/session", #"{"session":"   "}"#, 2001),
            ("/console/dev/session", #"{"session":"\#(String(repeating: "s", count: 151))"}"#, 2002),
            ("/console/dev/person", "not json", 1001),
            ("/console/dev/person", #"{"session":"Studio","invite":"x"}"#, 1004),
            ("/console/dev/person", #"{"session":"Studio","invite":"not a code","name":"Bo"}"#, 2018),
            ("/console/dev/person", #"{"session":"Studio","invite":"\#(joinToken)","name":"Bo"}"#, 2018),
        ]
        for (path, body, code) in cases {
            let reply = try await RawHTTP.send(port: running.port, "POST", path, body: body)
            #expect(reply.status == 400, "\(body)")
            #expect(Self.errorCode(reply.body) == code, "\(body): \(reply.body)")
        }
        // A code for one session is refused for another.
        let created = Self.json(try await RawHTTP.send(port: running.port, "POST", "/console/dev/session", body: #"{"session":"Studio"}"#).body)
        let hostInvite = try #require(created["hostInvite"] as? String)
        let other = try await RawHTTP.send(port: running.port, "POST", "/console/dev/token", body: #"{"session":"Other","invite":"\#(hostInvite)"}"#)
        #expect(Self.errorCode(other.body) == 1020)
        // A personal link needs a name the session would take.
        for (name, code) in [(" ", 2003), (String(repeating: "n", count: 201), 2004), ("Bo\\u0000", 2015)] {
            let reply = try await RawHTTP.send(
                port: running.port, "POST", "/console/dev/person", body: #"{"session":"Studio","invite":"\#(hostInvite)","name":"\#(name)"}"#)
            #expect(reply.status == 400, "\(name)")
            #expect(Self.errorCode(reply.body) == code, "\(name): \(reply.body)")
        }
        await running.stop()
    }

    /// The console's bodies are read as strictly as the protocol's frames: an oversized body
    /// is 413 1003 and a key given twice 1001, on every endpoint, never a server failure (1010).
    @Test func oversizedBodiesAndDuplicateKeysAreTheClientsFaultOnEveryEndpoint() async throws {
        let running = try await Self.developmentServer()
        let limit = running.server.configuration.maxFrameBytes
        let endpoints = ["/console/dev/token", "/console/dev/session", "/console/dev/person"]
        for path in endpoints {
            for size in [limit + 1, 1 << 20] {
                let invite = String(repeating: "a", count: size)
                let reply = try await RawHTTP.send(
                    port: running.port, "POST", path, body: #"{"session":"Studio","invite":"\#(invite)","name":"Bo"}"#)
                #expect(reply.status == 413, "\(path) \(size)")
                #expect(Self.errorCode(reply.body) == 1003, "\(path) \(size): \(reply.body.prefix(200))")
            }
            let twice = try await RawHTTP.send(
                port: running.port, "POST", path, body: #"{"session":"Studio","session":"Other","invite":"x","name":"Bo"}"#)
            #expect(twice.status == 400, "\(path)")
            #expect(Self.errorCode(twice.body) == 1001, "\(path): \(twice.body)")
            #expect(twice.body.contains("appears twice"), "\(path): \(twice.body)")
        }
        // Just under the limit, a long code is still only an invalid invite.
        let long = try await RawHTTP.send(
            port: running.port, "POST", "/console/dev/token", body: #"{"session":"Studio","invite":"\#(String(repeating: "a", count: 20_000))"}"#)
        #expect(long.status == 400)
        #expect(Self.errorCode(long.body) == 1020, "\(long.body.prefix(200))")
        // Nothing was made by any of them: the name is still free.
        let created = try await RawHTTP.send(port: running.port, "POST", "/console/dev/session", body: #"{"session":"Other"}"#)
        #expect(created.status == 200)
        await running.stop()
    }
}

/// `caucus` is the whole install (issue 26, item 8): the binary copied alone into an empty
/// folder, with nothing built beside it, serves the console.
@Suite(.serialized) struct OneFileInstallTests {
    @Test func theBinaryCopiedAloneServesTheConsole() async throws {
        let folder = URL(fileURLWithPath: TestServer.temporaryFolder())
        // Removed after the server has stopped (the defers run last first): the copy is the
        // whole debug binary, some 160 MB a run.
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("caucus")
        try FileManager.default.copyItem(at: ServerProcess.executable, to: copy)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["caucus"])
        let data = folder.appendingPathComponent("data").path
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let server = try await ServerProcess(dataDirectory: data, executable: copy, workingDirectory: folder)
        defer { server.kill(SIGTERM) }
        let page = try await RawHTTP.send(port: server.port, "GET", "/console/")
        #expect(page.status == 200)
        #expect(page.body.contains(#"<script type="module" src="/console/app.js">"#))
        let module = try await RawHTTP.send(port: server.port, "GET", "/console/app.js")
        #expect(module.status == 200 && module.header("Content-Type") == "text/javascript; charset=utf-8")
    }

    /// What the binary serves is, byte for byte, what the source folder holds.
    @Test func theEmbeddedFilesAreTheSourceFolders() async throws {
        let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/CaucusServer/Console/Assets")
        let names = try FileManager.default.contentsOfDirectory(atPath: assets.path).filter { !$0.hasPrefix(".") }
        let server = try await TestServer.start()
        for name in names {
            let reply = try await RawHTTP.send(port: server.port, "GET", "/console/\(name)")
            #expect(reply.status == 200, "\(name)")
            #expect(Data(reply.body.utf8) == (try Data(contentsOf: assets.appendingPathComponent(name))), "\(name)")
        }
        await server.stop()
    }
}
