import CaucusProcessTestSupport
import Foundation
import Testing

/// When the store fails, every command still waiting for it is answered with its error
/// (1010 `internalError`) before the connection closes with 4006, so a client knows which of
/// its commands took effect (issue 26, item 4). The failure is real: another process holds
/// the SQLite file's write lock until the server's write gives up.
@Suite(.serialized) struct StoreFailureReplyTests {
    @Test func everyCommandWaitingOnAFailedStoreIsAnsweredBeforeTheClose() async throws {
        let server = try await TestServer.start()
        let ann = try await server.joined("Ann", role: .host)
        let ben = try await server.joined("Ben")
        try await ann.request("chat", ["text": "stored"])
        let lock = try DatabaseLock(path: server.dataDirectory + "/caucus.sqlite")
        defer { lock.release() }
        try await lock.held()
        let annChat = try await ann.send("chat", ["text": "never stored"])
        let benChat = try await ben.send("chat", ["text": "never stored either"])
        for (client, id) in [(ann, annChat), (ben, benChat)] {
            var answer: JSON?
            while let frame = try await client.nextFrame() {
                if frame["re"] as? Int == id { answer = frame }
            }
            let error = try #require(answer?["error"] as? JSON, "no answer to \(id) before the close")
            #expect(error["code"] as? Int == 1010, "\(error)")
            #expect(await client.closeCode == .some(4006))
        }
        await server.stop()
    }
}

/// A second process (Python's sqlite3) holding a database's write lock: `BEGIN IMMEDIATE`,
/// kept until its standard input closes — when `release` closes it, or when the test process
/// ends however it ends (a `terminate` alone left these processes running after test runs).
final class DatabaseLock: Sendable {
    private let process: Process
    private let output: FileHandle
    private let input: FileHandle

    init(path: String) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let script = """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute("BEGIN IMMEDIATE")
            print("locked", flush=True)
            sys.stdin.read()
            """
        process.arguments = ["python3", "-c", script, path]
        let stdout = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardInput = stdin
        input = stdin.fileHandleForWriting
        process.standardError = FileHandle.nullDevice
        output = stdout.fileHandleForReading
        try process.run()
    }

    /// Returns once the lock is taken.
    func held() async throws {
        let output = output
        let line = try await offThePool { String(decoding: output.availableData, as: UTF8.self) }
        guard line.hasPrefix("locked") else { throw TestFailure("the lock was not taken: \(line)") }
    }

    func release() {
        try? input.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
