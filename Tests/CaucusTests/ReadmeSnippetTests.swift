import Caucus
import Foundation
import Testing

/// README's "The SDK in ten lines" is what an app writes: it typechecks on its own with only
/// the imports it shows, against the SDK as built, and it runs as written against a real
/// server reached at the address it names.
@Suite(.serialized) struct ReadmeSnippetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The README's Swift block, line by line.
    static func readmeSnippet() throws -> [String] {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## The SDK in ten lines").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```swift\n").dropFirst().first?.components(separatedBy: "\n```").first)
        return block.components(separatedBy: "\n")
    }

    @Test func theSnippetTypechecksWithOnlyItsOwnImports() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-readme-\(UUID().uuidString).swift")
        try (Self.readmeSnippet().joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let build = Self.root.appendingPathComponent(".build/debug").resolvingSymlinksInPath()
        // The modules as this build made them, and the C modules' maps and headers they need.
        var arguments = ["swiftc", "-typecheck", "-I", build.appendingPathComponent("Modules").path]
        for entry in try FileManager.default.contentsOfDirectory(atPath: build.path) where entry.hasSuffix(".build") {
            let map = build.appendingPathComponent(entry).appendingPathComponent("module.modulemap")
            if FileManager.default.fileExists(atPath: map.path) { arguments += ["-Xcc", "-fmodule-map-file=" + map.path] }
        }
        let checkouts = Self.root.appendingPathComponent(".build/checkouts")
        let walker = FileManager.default.enumerator(at: checkouts, includingPropertiesForKeys: [.isDirectoryKey])
        while let url = walker?.nextObject() as? URL {
            if url.lastPathComponent == "include", (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
                arguments += ["-Xcc", "-I" + url.path]
            }
        }
        arguments.append(file.path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "the README's snippet does not typecheck on its own:\n\(text)")
    }

    @Test func theSnippetRunsAsWritten() async throws {
        // This function's body is the README's block after its imports, line for line.
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let body = try #require(source.components(separatedBy: "        // README begins\n").dropFirst().first?.components(separatedBy: "        // README ends").first)
        let ours = body.components(separatedBy: "\n").dropLast().map { $0.hasPrefix("        ") ? String($0.dropFirst(8)) : $0 }
        #expect(try Self.readmeSnippet().drop { $0.hasPrefix("import ") || $0.isEmpty }.map { $0 } == ours, "README and this test differ")

        let server = try await TestServer.start()
        // The snippet names ws://127.0.0.1:8080/ws: a relay there reaches the test's server.
        let proxy = try await TCPProxy.start(to: server.port, port: 8080)
        setenv("CAUCUS_TOKEN", try server.token(session: "Class", role: .host), 1)
        try await Self.runTheSnippet()
        await proxy.stop()
        await server.stop()
    }

    private static func runTheSnippet() async throws {
        // README begins
        let jwt = ProcessInfo.processInfo.environment["CAUCUS_TOKEN"]!       // e.g. from `caucus token`
        let session = CaucusSession()
        Task { for await event in session.events { print(event) } }          // or: session.delegate = self
        try await session.join(url: URL(string: "ws://127.0.0.1:8080/ws")!, sessionName: "Class", userName: "Ada", token: jwt)
        try await session.subsessionHelper.addToPreList("Red", "Blue")        // host: plan…
        try await session.subsessionHelper.commit()                           // …commit…
        try await session.subsessionManager?.start(durationSeconds: 600, autoAssign: true)   // host or manager
        print(session.snapshot!.subsessions)                                  // already right: no waiting for a callback
        try await session.snapshot!.subsession(named: "Red")!.join()          // anyone: choose a room
        try await session.leave()
        // README ends
    }
}
