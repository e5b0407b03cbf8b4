import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL server for the tests, started once per test process on a temporary data
/// folder, on 127.0.0.1 and a free port, with trust authentication; each caller gets a fresh
/// database of its own on it. The server stops (and its folder goes) once the test process
/// has exited, whichever way it exits.
///
/// Without PostgreSQL's programs this fails with what to install: the PostgreSQL side of the
/// store tests is never skipped quietly. `scripts/test` installs Debian's `postgresql`.
public actor TestPostgres {
    public static let shared = TestPostgres()

    /// The superuser `initdb` makes; trust authentication, so no password.
    public static let user = "caucus"

    private var server: Task<Server, any Error>?
    private var databases = 0

    private struct Server {
        let bin: URL
        let port: Int
    }

    /// The URL of a new, empty database (`postgres://caucus@127.0.0.1:PORT/NAME`).
    public func freshDatabase(_ prefix: String = "caucus") async throws -> String {
        let server = try await running()
        databases += 1
        let name = "\(prefix)_\(getpid())_\(databases)".lowercased().filter { $0.isLetter || $0.isNumber || $0 == "_" }
        try await Self.run(
            server.bin.appendingPathComponent("createdb"), ["-h", "127.0.0.1", "-p", "\(server.port)", "-U", Self.user, name])
        return "postgres://\(Self.user)@127.0.0.1:\(server.port)/\(name)?sslmode=disable"
    }

    private func running() async throws -> Server {
        if let server { return try await server.value }
        let starting = Task { try await Self.start() }
        server = starting
        return try await starting.value
    }

    // MARK: - Starting the server

    private static func start() async throws -> Server {
        let bin = try binaries()
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("caucus-pg-\(UUID().uuidString)")
        do {
            return try await start(bin: bin, in: folder)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    private static func start(bin: URL, in folder: URL) async throws -> Server {
        let data = folder.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        // initdb and postgres refuse to run as root: then the `postgres` account the Debian
        // package makes runs them, and owns the folder.
        let asRoot = getuid() == 0
        if asRoot { try await run(URL(fileURLWithPath: "/bin/chown"), ["-R", "postgres", folder.path]) }
        try await asServerUser(
            asRoot, bin.appendingPathComponent("initdb"),
            ["-D", data.path, "-U", user, "-A", "trust", "--no-sync", "-E", "UTF8", "--locale", "C"])
        watchForExit(of: getpid(), bin: bin, data: data, folder: folder, asRoot: asRoot)
        // A port taken between choosing and binding fails the start: then try another.
        var lastError: (any Error)?
        for _ in 0..<3 {
            let port = try freePort()
            do {
                // `-w`: pg_ctl returns once the server accepts connections (no polling here).
                try await asServerUser(
                    asRoot, bin.appendingPathComponent("pg_ctl"),
                    [
                        "-D", data.path, "-l", folder.appendingPathComponent("server.log").path, "-w", "-t", "120",
                        "-o", "-c listen_addresses=127.0.0.1 -p \(port) -k \(folder.path) -c fsync=off", "start",
                    ])
                return Server(bin: bin, port: port)
            } catch {
                lastError = error
            }
        }
        throw lastError ?? PostgresTestFailure("PostgreSQL did not start")
    }

    /// PostgreSQL's programs: `CAUCUS_TEST_PG_BIN`, else the newest Debian install, else
    /// those on the PATH.
    static func binaries() throws -> URL {
        let fileManager = FileManager.default
        if let configured = ProcessInfo.processInfo.environment["CAUCUS_TEST_PG_BIN"] {
            guard fileManager.isExecutableFile(atPath: configured + "/initdb") else {
                throw PostgresTestFailure("CAUCUS_TEST_PG_BIN is \(configured), which holds no initdb.")
            }
            return URL(fileURLWithPath: configured)
        }
        let debian = "/usr/lib/postgresql"
        let versions = ((try? fileManager.contentsOfDirectory(atPath: debian)) ?? []).compactMap(Int.init).sorted()
        if let newest = versions.last, fileManager.isExecutableFile(atPath: "\(debian)/\(newest)/bin/initdb") {
            return URL(fileURLWithPath: "\(debian)/\(newest)/bin")
        }
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        where fileManager.isExecutableFile(atPath: "\(folder)/initdb") && fileManager.isExecutableFile(atPath: "\(folder)/pg_ctl") {
            return URL(fileURLWithPath: String(folder))
        }
        throw PostgresTestFailure(
            "PostgreSQL is not installed (no initdb in /usr/lib/postgresql/*/bin or on the PATH): the store tests need a real "
                + "server. Install it (`apt-get install postgresql`, as scripts/test does) or set CAUCUS_TEST_PG_BIN.")
    }

    static func asServerUser(_ asRoot: Bool, _ program: URL, _ arguments: [String]) async throws {
        if asRoot {
            try await run(URL(fileURLWithPath: "/usr/sbin/runuser"), ["-u", "postgres", "--", program.path] + arguments)
        } else {
            try await run(program, arguments)
        }
    }

    /// Stops the server and removes its folder once the process `pid` is gone: a shell of its
    /// own outlives the test process, so no exit path (a crash, a failed expectation that
    /// exits early) leaves a server running.
    static func watchForExit(of pid: pid_t, bin: URL, data: URL, folder: URL, asRoot: Bool) {
        let stop = "\(bin.appendingPathComponent("pg_ctl").path) -D '\(data.path)' -m immediate stop"
        let stopCommand = asRoot ? "/usr/sbin/runuser -u postgres -- \(stop)" : stop
        let script = "while kill -0 \(pid) 2>/dev/null; do sleep 1; done; \(stopCommand) >/dev/null 2>&1; rm -rf '\(folder.path)'"
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: "/bin/sh")
        watcher.arguments = ["-c", script]
        watcher.standardInput = FileHandle.nullDevice
        watcher.standardOutput = FileHandle.nullDevice
        watcher.standardError = FileHandle.nullDevice
        try? watcher.run()
    }

    /// A TCP port free on 127.0.0.1 now.
    private static func freePort() throws -> Int {
        guard let port = try FreePorts.take(1).first else { throw PostgresTestFailure("no free port") }
        return port
    }

    /// Runs a program to its end, failing with its output if it fails.
    ///
    /// Not with Foundation's `Process`: it learns that a child ended when a socket the child
    /// inherits closes, and the postmaster `pg_ctl start` leaves running inherits it too, so
    /// `pg_ctl` would never be seen to end. Here the child is spawned and waited for with
    /// `waitpid`, through bash that first closes every descriptor above 2, so that the
    /// server keeps none of the test process's sockets or pipes open.
    static func run(_ program: URL, _ arguments: [String]) async throws {
        let log = NSTemporaryDirectory() + "caucus-pg-run-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        // bash, not dash: dash keeps descriptors of its own above 2, and dies when they close.
        let closeInherited = #"for fd in /proc/$$/fd/*; do fd=${fd##*/}; if [ "$fd" -gt 2 ]; then eval "exec $fd>&-" 2>/dev/null; fi; done; exec "$@""#
        let argv = ["/bin/bash", "-c", closeInherited, "bash", program.path] + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, cArguments, environ)
        guard spawned == 0 else { throw PostgresTestFailure("cannot run \(program.path): error \(spawned)") }
        let child = pid
        let status: Int32 = await withCheckedContinuation { continuation in
            // A blocking wait on a thread of its own, off Swift's cooperative pool.
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(child, &status, 0) == -1 && errno == EINTR {}
                continuation.resume(returning: status)
            }
        }
        // WIFEXITED and WEXITSTATUS, which are macros C exports to Swift only as numbers.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw PostgresTestFailure("\(program.lastPathComponent) \(arguments.joined(separator: " ")) failed (status \(status)): \(output)")
        }
    }
}

public struct PostgresTestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
