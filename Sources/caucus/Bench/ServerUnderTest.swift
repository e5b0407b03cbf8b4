import CaucusAuth
import CaucusCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The server a benchmark measures: a `caucus serve` child process started on a fresh data
/// folder (so its memory and CPU can be read from /proc), or a running one given by URL.
///
/// A fresh data folder is the bench's own: it goes when the bench ends (``stop()``, or
/// ``removeFolder(_:)`` for one several servers share), recordings and all (about 145 MB a run
/// of `bench media --record`), so runs do not fill the temporary folder.
final class ServerUnderTest: Sendable {
    let host: String
    let port: Int
    let app: AppCredentials
    private let process: Process?
    /// The data folder ``stop()`` removes: one this server alone was started on.
    private let ownedFolder: String?

    static let benchApp = AppCredentials(
        key: "bench", secret: "bench-secret-0123456789abcdef",
        // A long grace: `reconnect --missed 10000` keeps its users away while it broadcasts.
        // Up to 1,000 rooms: `media --room-size 5` puts 1,000 users in 200.
        limits: SessionLimits(maxSubsessions: 1_000, maxUsersPerSession: 20_000, maxRoomCapacity: 10_000, reconnectGraceSeconds: 600), maxSessions: 100_000)

    private init(host: String, port: Int, app: AppCredentials, process: Process?, ownedFolder: String?) {
        (self.host, self.port, self.app, self.process, self.ownedFolder) = (host, port, app, process, ownedFolder)
    }

    convenience init(url: String?, app: AppCredentials?) throws {
        if let url {
            guard let components = URLComponents(string: url), let host = components.host, let port = components.port else {
                throw BenchError("--url must look like ws://127.0.0.1:8080")
            }
            guard let app else { throw BenchError("--url needs --app-key and --app-secret") }
            self.init(host: host, port: port, app: app, process: nil, ownedFolder: nil)
            return
        }
        try self.init(folder: Self.freshFolder(), arguments: [], ownsFolder: true)
    }

    /// A fresh data folder holding the bench app's configuration.
    static func freshFolder() throws -> String {
        let folder = NSTemporaryDirectory() + "caucus-bench-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        BenchLeftovers.adopt(folder: folder)
        struct AppsList: Encodable { let apps: [AppCredentials] }
        _ = FileManager.default.createFile(atPath: folder + "/apps.json", contents: try JSONEncoder().encode(AppsList(apps: [Self.benchApp])))
        return folder
    }

    /// Removes a folder from ``freshFolder()`` once every server on it has stopped.
    static func removeFolder(_ folder: String) {
        try? FileManager.default.removeItem(atPath: folder)
        BenchLeftovers.forget(folder: folder)
    }

    /// `caucus serve` on `folder` (from `freshFolder`), with `arguments` after the usual ones
    /// (a later `--port` wins). With `ownsFolder`, ``stop()`` removes the folder (and so does
    /// a start that fails).
    convenience init(folder: String, arguments: [String], ownsFolder: Bool = false) throws {
        do {
            try self.init(starting: folder, arguments: arguments, ownsFolder: ownsFolder)
        } catch {
            if ownsFolder { Self.removeFolder(folder) }
            throw error
        }
    }

    private convenience init(starting folder: String, arguments: [String], ownsFolder: Bool) throws {
        let (process, port) = try BenchChildProcess.start(
            // A bench opens its users' sockets from one address before they join, and some
            // wait their turn to join longer than real clients would.
            ["serve", "--port", "0", "--data", folder, "--config", folder + "/apps.json", "--log-level", "error",
             "--join-deadline", "3600", "--max-waiting-per-address", "1000000", "--max-waiting", "1000000"] + arguments,
            name: "caucus serve", address: Self.port(in:))
        self.init(host: "127.0.0.1", port: port, app: Self.benchApp, process: process, ownedFolder: ownsFolder ? folder : nil)
    }

    /// The port in `caucus serve`'s first line (`… 127.0.0.1:8080 …`).
    static func port(in line: String) -> Int? {
        guard let range = line.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression) else { return nil }
        return Int(line[range].split(separator: ":").last ?? "")
    }

    func token(session: String, role: RoleClaim) throws -> String {
        try TokenMinter.mint(app: app, sessionName: session, role: role, issuedAt: Instant.wallClock(), lifetimeSeconds: 7200)
    }

    /// Resident memory of the server process, in KiB (nil for a server given by URL).
    var residentKiB: Int? {
        guard let pid = process?.processIdentifier,
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" })[1])
    }

    /// CPU time the server process has used (user + system), in seconds.
    var cpuSeconds: Double? { cpuTimes?.total }

    /// The same, split into user and system time.
    var cpuTimes: ProcessCPU.Times? {
        process.flatMap { ProcessCPU.times(of: $0.processIdentifier) }
    }

    /// Kills the server process at once (SIGKILL), as a machine dying would.
    func kill() {
        if let process { BenchChildProcess.abandon(process) }
    }

    /// Stops the server (SIGTERM, then waits), and removes the data folder it owns.
    func stop() {
        if let process { BenchChildProcess.stop(process) }
        if let ownedFolder { Self.removeFolder(ownedFolder) }
    }

    deinit { stop() }
}
