import CaucusAuth
import CaucusCore
import CaucusPostgresTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `caucus serve` as a real child process, for killing it. Shared by the server's restart tests
/// and the SDK's reconnect tests.
public final class ServerProcess {
    public let process = Process()
    public let port: Int
    public let dataDirectory: String
    /// Where the server's standard error goes: read when it ends before listening, to say why.
    private let errorLog = NSTemporaryDirectory() + "caucus-serve-\(UUID().uuidString).stderr"

    public static let app = AppCredentials(key: "process-app", secret: "process-secret-0123456789")

    /// The `caucus` executable `swift build --traits Codecs` made beside the tests (`swift test`
    /// alone does not build executables, hence scripts/test's `swift build` before `swift test`).
    public static var executable: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/caucus")
    }

    /// `caucus serve` on `dataDirectory`, storing sessions in SQLite there or, with `store`, in
    /// that PostgreSQL database; `arguments` go after the others, `environment` adds to this
    /// process's.
    ///
    /// Async, and its wait for the first line made on a thread of its own: a blocking read on
    /// Swift's cooperative pool (two threads on two cores) would stall every other test of the
    /// process while the server starts.
    /// `executable` runs another copy of `caucus` than the one the build made.
    public init(
        dataDirectory: String, store: String? = nil, arguments: [String] = [], environment: [String: String] = [:],
        executable: URL = ServerProcess.executable, workingDirectory: URL? = nil
    ) async throws {
        self.dataDirectory = dataDirectory
        let config = dataDirectory + "/apps.json"
        if !FileManager.default.fileExists(atPath: config) {
            let apps = try JSONEncoder().encode(AppsList(apps: [Self.app]))
            _ = FileManager.default.createFile(atPath: config, contents: apps)
        }
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw TestFailure("\(executable.path) is missing: run `swift build --traits Codecs` before `swift test --traits Codecs`, as scripts/test does")
        }
        process.executableURL = executable
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        process.arguments = ["serve", "--port", "0", "--data", dataDirectory, "--config", config, "--log-level", "error"]
            + (store.map { ["--store", $0] } ?? []) + arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let output = Pipe()
        process.standardOutput = output
        _ = FileManager.default.createFile(atPath: errorLog, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: errorLog)
        try process.run()
        // The first line says where it listens.
        let handle = output.fileHandleForReading
        let line: Data = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var line = Data()
                while !line.contains(UInt8(ascii: "\n")) {
                    let chunk = handle.readData(ofLength: 1)
                    if chunk.isEmpty { break }
                    line += chunk
                }
                continuation.resume(returning: line)
            }
        }
        guard line.contains(UInt8(ascii: "\n")) else {
            // Its standard output closed: it ended, and wrote why before it did. (No deinit
            // follows an init that throws: the file goes here.)
            let errors = (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(atPath: errorLog)
            throw ExitedBeforeListening(errors: errors)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression),
            let port = Int(text[range].split(separator: ":").last ?? "")
        else { throw TestFailure("no port in \(text)") }
        self.port = port
    }

    public var webSocketURL: String { "ws://127.0.0.1:\(port)/ws" }

    public func token(session: String, role: RoleClaim = .participant) throws -> String {
        try TokenMinter.mint(app: Self.app, sessionName: session, role: role, issuedAt: Instant.wallClock())
    }

    public func kill(_ signal: Int32) {
        Glibc.kill(process.processIdentifier, signal)
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(atPath: errorLog)
    }

    /// `caucus serve` on a port chosen here, for a server that must know its port before it
    /// binds it (a node announcing `http://127.0.0.1:<port>` as its node URL): `arguments` gets
    /// the port. A free port is only free when it is chosen: another process can bind it before
    /// the server does, which then ends with "Address already in use"; then again on another.
    public static func onAFreePort(
        dataDirectory: String, store: String? = nil, arguments: (_ port: Int) -> [String]
    ) async throws -> ServerProcess {
        var attempt = 1
        while true {
            let port = try FreePorts.take(1)[0]
            do {
                return try await ServerProcess(dataDirectory: dataDirectory, store: store, arguments: ["--port", "\(port)"] + arguments(port))
            } catch let error as ExitedBeforeListening where error.portTaken && attempt < 5 {
                attempt += 1
            }
        }
    }

    /// The server ended before it said where it listens; `errors` is what it wrote on the way.
    public struct ExitedBeforeListening: Error, CustomStringConvertible {
        public let errors: String
        public var portTaken: Bool { errors.contains("Address already in use") }
        public var description: String { "caucus serve exited before listening: \(errors.isEmpty ? "it wrote nothing" : errors)" }
    }

    private struct AppsList: Encodable { let apps: [AppCredentials] }
}
