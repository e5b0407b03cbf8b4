import CaucusProcessTestSupport
import CaucusTestSupport
import Foundation

extension ServerProcess {
    /// Runs `caucus` with `arguments` to its end (a bench, say), off the cooperative pool:
    /// its exit status, standard output and standard error. `environment` is added to this
    /// process's own.
    static func runToEnd(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let (output, error) = (Pipe(), Pipe())
        process.standardOutput = output
        process.standardError = error
        try process.run()
        return try await offThePool {
            // Progress lines are few: reading standard output to its end cannot block on them.
            let data = output.fileHandleForReading.readDataToEndOfFile()
            let errors = error.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self), String(decoding: errors, as: UTF8.self))
        }
    }
}
