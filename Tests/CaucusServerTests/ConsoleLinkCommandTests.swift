import CaucusAuth
import CaucusCore
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 38, item 2: with configured apps (`caucus serve --config`), a class opens from the
/// link `caucus link` prints, with no app server; the console's making of classes stays the
/// development app's.
@Suite(.serialized) struct ConsoleLinkCommandTests {
    struct Run: Sendable {
        let status: Int32
        let output: String
        let errors: String
    }

    /// `caucus` with `arguments`, on a thread of its own (a blocking wait on Swift's cooperative
    /// pool would stall the other tests).
    static func caucus(_ arguments: [String]) async throws -> Run {
        let process = Process()
        process.executableURL = ServerProcess.executable
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let out = output.fileHandleForReading.readDataToEndOfFile()
                let err = errors.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(
                    returning: Run(
                        status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
                        errors: String(decoding: err, as: UTF8.self)))
            }
        }
    }

    static func query(of link: String) throws -> [String: String] {
        let components = try #require(URLComponents(string: link.trimmingCharacters(in: .whitespacesAndNewlines)))
        return Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    @Test func aClassOpensWithConfiguredAppsThroughThePrintedLink() async throws {
        let data = temporaryFolder()
        let server = try await ServerProcess(dataDirectory: data)
        let port = server.port
        let base = "http://127.0.0.1:\(port)"
        let printed = try await Self.caucus([
            "link", "--config", data + "/apps.json", "--app", ServerProcess.app.key, "--session", "Period 3+4", "--role", "host", "--url", base,
        ])
        #expect(printed.status == 0, "\(printed.errors)")
        #expect(printed.output.hasPrefix(base + "/console/?"), "\(printed.output)")
        #expect(!printed.output.contains(ServerProcess.app.secret))
        let link = try Self.query(of: printed.output)
        #expect(link["session"] == "Period 3+4")
        let hostCode = try #require(link["invite"])
        // No development helpers, no banner, no making of classes on this server.
        let status = try await RawHTTP.send(port: port, "GET", "/console/dev")
        #expect(status.body.contains(#""development":false"#), "\(status.body)")
        let making = try await RawHTTP.send(port: port, "POST", "/console/class", body: #"{"session":"Period 3+4"}"#)
        #expect(making.status == 404)
        // The link opens the class: a host token for it, and the class's participant link.
        let host = try await ConsoleClassLinksTests.post(port, "/console/token", ["session": "Period 3+4", "invite": hostCode])
        #expect(host.status == 200, "\(host.json)")
        #expect(try host.string("role") == "host")
        let teacher = try await TestClient.connect(url: server.webSocketURL)
        try await teacher.join(session: "Period 3+4", userName: "Ms Rivera", token: try host.string("token"))
        let participant = try await ConsoleClassLinksTests.post(
            port, "/console/token", ["session": "Period 3+4", "invite": try host.string("participantInvite")])
        #expect(try participant.string("role") == "participant")
        let bo = try await TestClient.connect(url: server.webSocketURL)
        try await bo.join(session: "Period 3+4", userName: "Bo", token: try participant.string("token"))
        let roles = (await bo.joinSnapshot["users"] as? [[String: any Sendable]] ?? []).map { $0["role"] as? String }
        #expect(roles == ["host", "participant"])
        // `caucus link --role participant --class` prints the same class's participant link.
        let classID = try host.string("class")
        let participantLink = try await Self.caucus([
            "link", "--config", data + "/apps.json", "--session", "Period 3+4", "--role", "participant", "--class", classID, "--url", base,
        ])
        #expect(participantLink.status == 0, "\(participantLink.errors)")
        let cy = try await ConsoleClassLinksTests.post(
            port, "/console/token", ["session": "Period 3+4", "invite": try #require(Self.query(of: participantLink.output)["invite"])])
        #expect(try cy.string("role") == "participant")
        // A second printed host link is another class: refused while this one runs.
        let other = try await Self.caucus(["link", "--config", data + "/apps.json", "--session", "Period 3+4", "--url", base])
        let otherCode = try #require(Self.query(of: other.output)["invite"])
        let refused = try await ConsoleClassLinksTests.post(port, "/console/token", ["session": "Period 3+4", "invite": otherCode])
        #expect(refused.code == 1021, "\(refused.json)")
        await teacher.close()
        await bo.close()
        server.kill(SIGTERM)
    }

    @Test func badArgumentsAreRefusedInWordsAndPrintNoLink() async throws {
        let data = temporaryFolder()
        let apps = data + "/apps.json"
        let file = #"{"apps": [{"key": "one", "secret": "secret-one-0123456789"}, {"key": "two", "secret": "secret-two-0123456789"}]}"#
        #expect(FileManager.default.createFile(atPath: apps, contents: Data(file.utf8)))
        let cases: [([String], String)] = [
            (["--config", apps, "--session", "Class"], "name one with --app"),
            (["--config", apps, "--app", "three", "--session", "Class"], "has no app with key three"),
            (["--config", data + "/missing.json", "--session", "Class"], "cannot be read"),
            (["--config", apps, "--app", "one", "--session", "Class", "--role", "participant"], "give --class"),
            (["--config", apps, "--app", "one", "--session", "Class", "--class", "PERIOD"], "32 lowercase hexadecimal digits"),
            (["--config", apps, "--app", "one", "--session", "   "], "session name"),
            (["--app", "one", "--session", "Class"], "give --config too"),
            (["--config", apps, "--app", "one", "--session", "Class", "--url", "ftp://x"], "--url is the console's address"),
        ]
        for (arguments, words) in cases {
            let run = try await Self.caucus(["link"] + arguments)
            #expect(run.status != 0, "\(arguments)")
            #expect(run.output.isEmpty, "\(arguments): \(run.output)")
            #expect(run.errors.contains(words), "\(arguments): \(run.errors)")
        }
    }
}
