import CaucusProcessTestSupport
import CaucusTestSupport
import Foundation
import Testing

/// A `--store` that no retry can mend (a database or role the server does not have, TLS it
/// does not offer) ends `caucus serve` at once, printing PostgreSQL's own reason, rather than
/// after the wait for a server that is not up yet.
@Suite(.serialized) struct BadStoreStartupTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// Changes the URL of a real database into the bad one.
        let spoil: @Sendable (inout URLComponents) -> Void
        let reason: String
        var testDescription: String { name }
    }

    static let cases = [
        Case(name: "a missing database", spoil: { $0.path = "/nosuchdb" }, reason: #"database "nosuchdb" does not exist"#),
        Case(name: "a missing role", spoil: { $0.user = "nobody" }, reason: #"role "nobody" does not exist"#),
        Case(
            name: "TLS the server does not offer", spoil: { $0.queryItems = [URLQueryItem(name: "sslmode", value: "require")] },
            reason: "the server does not offer TLS"),
    ]

    @Test(arguments: cases)
    func aStoreNoRetryCanMendEndsTheStartWithPostgreSQLsReason(_ bad: Case) async throws {
        let database = try #require(try await ServerStore.postgres.freshDatabase())
        var url = try #require(URLComponents(string: database))
        bad.spoil(&url)
        let store = try #require(url.string)
        let started = ContinuousClock.now
        let (status, output) = try await Self.serve(store: store, folder: TestServer.temporaryFolder())
        let took = ContinuousClock.now - started
        #expect(status != 0, "caucus serve must not run on \(store): \(output)")
        // The error it ends with, not only a log line on the way.
        let error = output.split(separator: "\n").last { $0.hasPrefix("Error:") } ?? ""
        #expect(error.contains(bad.reason), "PostgreSQL's reason, not a wait that ran out: \(output)")
        #expect(!error.contains("within"), "no wait for a server that already answered (\(took)): \(output)")
        #expect(!output.contains("listening"), "the HTTP port never opened: \(output)")
    }

    /// Runs `caucus serve` on `store` to its end; its exit status and all it printed.
    private static func serve(store: String, folder: String) async throws -> (Int32, String) {
        let executable = ServerProcess.executable
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw TestFailure("\(executable.path) is missing: run `swift build --traits Codecs` before `swift test --traits Codecs`, as scripts/test does")
        }
        return try await offThePool {
            let process = Process()
            process.executableURL = executable
            process.arguments = ["serve", "--port", "0", "--media-port", "0", "--data", folder, "--store", store]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
    }
}
