import Foundation
import Testing

@testable import caucus

#if canImport(Glibc)
import Glibc
#endif

/// The children a bench starts (`caucus serve`, the relay): a child whose first line does not
/// say where it listens is stopped, not left running after the bench gives up on it. Real
/// processes (`/bin/sh`), each writing its own process id to a file first.
@Suite struct BenchChildProcessTests {
    @Test func aChildThatDoesNotSayWhereItListensIsStopped() throws {
        let pidFile = NSTemporaryDirectory() + "bench-child-\(UUID().uuidString).pid"
        defer { try? FileManager.default.removeItem(atPath: pidFile) }
        // `exec`: the shell becomes the sleep, so the written id is the process left running.
        // Its stderr goes nowhere: were it left running, it would hold no pipe of the runner's.
        let script = "echo $$ > '\(pidFile)'; echo 'Caucus is listening on [::1]:8080'; exec sleep 600 2>/dev/null"
        #expect(throws: BenchError.self) {
            try BenchChildProcess.start(["-c", script], name: "the child", executable: "/bin/sh", address: ServerUnderTest.port(in:))
        }
        let pid = try #require(Int32(String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        // Stopped and waited for: no such process (a child left running answers signal 0).
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
    }

    @Test func aChildThatSaysWhereItListensIsHandedBackRunning() throws {
        let script = "echo 'port 4242'; exec sleep 600 2>/dev/null"
        let (process, port) = try BenchChildProcess.start(["-c", script], name: "the relay", executable: "/bin/sh") { line in
            line.hasPrefix("port ") ? Int(line.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines)) : nil
        }
        defer {
            // SIGKILL: the test's thread may block SIGTERM, and its child inherits the mask.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        #expect(port == 4242)
        #expect(process.isRunning)
    }

    @Test func aChildThatExitsBeforeListeningIsAnError() {
        #expect(throws: BenchError.self) {
            try BenchChildProcess.start(["-c", "exit 3"], name: "the child", executable: "/bin/sh", address: ServerUnderTest.port(in:))
        }
    }

    @Test func theServersPortIsReadFromItsFirstLine() {
        #expect(ServerUnderTest.port(in: "Caucus is listening on http://127.0.0.1:41234 (WebSocket: ws://127.0.0.1:41234/ws)\n") == 41234)
        #expect(ServerUnderTest.port(in: "Caucus is listening on https://[::1]:8443\n") == nil)
    }
}
