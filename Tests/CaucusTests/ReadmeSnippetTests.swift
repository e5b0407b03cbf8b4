import Caucus
import CaucusCore
import Foundation
import Testing

/// README's "The SDK in ten lines" is what an app writes: it typechecks on its own with only
/// the imports it shows, against the SDK as built, and it runs as written against a real
/// server reached at the address it names.
@Suite(.serialized) struct ReadmeSnippetTests {
    /// The README's Swift block, line by line.
    static func readmeSnippet() throws -> [String] {
        let readme = try String(contentsOf: Typecheck.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## The SDK in ten lines").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```swift\n").dropFirst().first?.components(separatedBy: "\n```").first)
        return block.components(separatedBy: "\n")
    }

    @Test func theSnippetTypechecksWithOnlyItsOwnImports() async throws {
        let result = try await Typecheck.run(Self.readmeSnippet().joined(separator: "\n") + "\n")
        #expect(result.succeeded, "the README's snippet does not typecheck on its own:\n\(result.output)")
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
        try await ProcessInfo.$token.withValue(try server.token(session: "Class", role: .host)) {
            try await Self.runTheSnippet()
        }
        await proxy.stop()
        await server.stop()
    }

    /// What the snippet's `ProcessInfo.processInfo.environment` reads here: the test's token
    /// as `CAUCUS_TOKEN`, in this task alone. Setting the process's real variable (`setenv`)
    /// crashed the test process now and then: Foundation's `Process.run`, starting another
    /// test's helper at the same moment, copied `environ` while `setenv` reallocated it. The
    /// snippet's other lines run as written, and `theSnippetTypechecksWithOnlyItsOwnImports`
    /// checks the line against Foundation's own `ProcessInfo`.
    struct ProcessInfo {
        @TaskLocal static var token: String?
        static let processInfo = ProcessInfo()

        var environment: [String: String] { Self.token.map { ["CAUCUS_TOKEN": $0] } ?? [:] }
    }

    private static func runTheSnippet() async throws {
        // README begins
        let jwt = ProcessInfo.processInfo.environment["CAUCUS_TOKEN"]!       // e.g. from `caucus token`
        let session = CaucusSession()
        Task { for await event in session.events { print(event) } }          // or: session.delegate = self
        try await session.join(url: URL(string: "ws://127.0.0.1:8080/ws")!, sessionName: "Class", userName: "Ada", token: jwt)
        try await session.subsessionHelper?.addToPreList("Red", "Blue")       // host: plan…
        try await session.subsessionHelper?.commit()                          // …commit…
        try await session.subsessionManager?.start(durationSeconds: 600, autoAssign: true)   // host or manager
        print(session.snapshot!.subsessions)                                  // already right: no waiting for a callback
        try await session.snapshot!.subsession(named: "Red")!.join()          // anyone: choose a room
        try await session.audioHelper.start()                                 // media: publish your Opus…
        try await session.videoHelper.start()                                 // …and VP8 frames (videoHelper.send)
        Task { for await frame in session.mediaFrames { print(frame.user, frame.kind, frame.frame.size) } }   // everyone's, by user
        try await session.leave()
        // README ends
    }
}
