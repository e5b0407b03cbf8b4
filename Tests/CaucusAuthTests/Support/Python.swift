import CaucusProcessTestSupport
import Foundation

/// Runs python3, for checking tokens against PyJWT, the JWT library most Zoom samples use.
enum Python {
    struct Result {
        let status: Int32
        let output: String
        let errors: String
    }

    static let hasPyJWT: Bool = (try? runBlocking("import jwt").status) == 0

    static func run(_ script: String, arguments: [String] = []) async throws -> Result {
        try await offThePool { try runBlocking(script, arguments: arguments) }
    }

    private static func runBlocking(_ script: String, arguments: [String] = []) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read before waiting: a child that fills the pipe would otherwise never exit.
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            output: String(decoding: outputData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines),
            errors: String(decoding: errorData, as: UTF8.self))
    }
}
