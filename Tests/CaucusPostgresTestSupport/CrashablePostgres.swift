import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL server of one test's own, which the test crashes — every process of it killed
/// with SIGKILL, as the OOM killer or a failed host would — and starts again on the same folder
/// and port, where PostgreSQL recovers from its write-ahead log. `TestPostgres.shared` serves
/// every other test and must never be killed.
///
/// `walWriterDelay` is the background WAL writer's sleep: a commit made with
/// `synchronous_commit = off` waits for it in the server's shared memory, and a crash within it
/// loses that commit. PostgreSQL's default is 200 ms; a test that must see whether anything was
/// told to clients before it reached the WAL on disk sets the maximum (10 s), so the answer does
/// not depend on the crash's timing.
public final class CrashablePostgres: Sendable {
    public let port: Int
    private let bin: URL
    private let folder: URL
    private let walWriterDelay: String
    private let maxConnections: Int
    private var data: URL { folder.appendingPathComponent("data") }
    private let asRoot = getuid() == 0

    /// `maxConnections`: the server's connection slots (PostgreSQL's `max_connections`; three of
    /// them are kept for superusers, which the tests' role is).
    public init(walWriterDelay: String = "10s", maxConnections: Int = 100) async throws {
        self.maxConnections = maxConnections
        bin = try TestPostgres.binaries()
        folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("caucus-crashable-pg-\(UUID().uuidString)")
        self.walWriterDelay = walWriterDelay
        port = try FreePorts.take(1)[0]
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        if asRoot { try await TestPostgres.run(URL(fileURLWithPath: "/bin/chown"), ["-R", "postgres", folder.path]) }
        try await TestPostgres.asServerUser(
            asRoot, bin.appendingPathComponent("initdb"),
            ["-D", data.path, "-U", TestPostgres.user, "-A", "trust", "--no-sync", "-E", "UTF8", "--locale", "C"])
        TestPostgres.watchForExit(of: getpid(), bin: bin, data: data, folder: folder, asRoot: asRoot)
        try await start()
    }

    /// Starts the server (again), returning once it accepts connections: after a crash, once
    /// it has replayed its write-ahead log.
    public func start() async throws {
        // Right after a crash the kernel may still hold the old server's port or shared memory
        // for a moment: then another try.
        for attempt in 1...10 {
            do {
                return try await launch()
            } catch where attempt < 10 {
                try await Task.sleep(for: .milliseconds(500))
            } catch {
                let log = (try? String(contentsOf: folder.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
                throw PostgresTestFailure("\(error)\nserver.log ends:\n\(log.suffix(2000))")
            }
        }
    }

    private func launch() async throws {
        try await TestPostgres.asServerUser(
            asRoot, bin.appendingPathComponent("pg_ctl"),
            [
                "-D", data.path, "-l", folder.appendingPathComponent("server.log").path, "-w", "-t", "120",
                "-o", "-c listen_addresses=127.0.0.1 -p \(port) -k \(folder.path) -c wal_writer_delay=\(walWriterDelay) -c max_connections=\(maxConnections)", "start",
            ])
    }

    /// The running postmaster's process id.
    public func postmaster() throws -> Int32 {
        let pidFile = try String(contentsOf: data.appendingPathComponent("postmaster.pid"), encoding: .utf8)
        guard let postmaster = pidFile.split(separator: "\n").first.flatMap({ Int32($0) }) else {
            throw PostgresTestFailure("postmaster.pid names no process: \(pidFile)")
        }
        return postmaster
    }

    /// Kills the postmaster and every process it started with SIGKILL, all at once (no
    /// shutdown, no checkpoint, no flush of the WAL buffers), and waits until all are gone.
    public func crash() async throws {
        let postmaster = try postmaster()
        // Children first stopped (SIGSTOP), so none acts on its parent's death, then all killed.
        let everyone = [postmaster] + children(of: postmaster)
        for pid in everyone { kill(pid, SIGSTOP) }
        for pid in everyone { kill(pid, SIGKILL) }
        for _ in 0..<600 where everyone.contains(where: { kill($0, 0) == 0 && !isZombie($0) }) {
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The URL of a new, empty database on this server.
    public func freshDatabase(_ name: String) async throws -> String {
        try await TestPostgres.run(
            bin.appendingPathComponent("createdb"), ["-h", "127.0.0.1", "-p", "\(port)", "-U", TestPostgres.user, name])
        return "postgres://\(TestPostgres.user)@127.0.0.1:\(port)/\(name)?sslmode=disable"
    }

    private func children(of parent: Int32) -> [Int32] {
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return processes.compactMap(Int32.init).filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let end = stat.lastIndex(of: ")")
            else { return false }
            // After "pid (comm) state ppid": the comm may hold spaces, so split after its ")".
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == parent
        }
    }

    private func isZombie(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let end = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: end)...].split(separator: " ").first == "Z"
    }
}
