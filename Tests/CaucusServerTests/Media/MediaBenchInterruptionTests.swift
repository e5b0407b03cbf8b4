import CaucusProcessTestSupport
import CaucusTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `caucus bench media` stopped half-way, by Ctrl-C (SIGINT) or SIGTERM (`timeout`, a CI job
/// cancelled), while its server and its relay run and its data folder holds recordings: it
/// ends both children, removes the folder and exits with 128 + the signal, as a shell reports
/// a process the signal ended. Before, the bench died at once: the folder stayed, and the
/// server, sent SIGTERM alone, went on running.
@Suite(.serialized) struct MediaBenchInterruptionTests {
    @Test(arguments: [SIGINT, SIGTERM])
    func aBenchStoppedHalfWayEndsItsChildrenAndRemovesItsFolder(signal: Int32) async throws {
        let temporary = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        let bench = Process()
        bench.executableURL = ServerProcess.executable
        bench.arguments = ["bench", "media", "--users", "6", "--rooms", "2", "--seconds", "2", "--record", "--record-rounds", "1"]
        bench.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary + "/"]) { $1 }
        let (output, error) = (Pipe(), Pipe())
        bench.standardOutput = output
        bench.standardError = error
        try bench.run()
        defer { if bench.isRunning { kill(bench.processIdentifier, SIGKILL) } }

        // Until the relay measures: the server and the relay both run, and the folder holds a
        // round of recordings.
        let before = try await offThePool { () -> String in
            var text = ""
            while !text.contains("media: measuring the relay") {
                let data = error.fileHandleForReading.availableData
                guard !data.isEmpty else { break }
                text += String(decoding: data, as: UTF8.self)
            }
            return text
        }
        try #require(before.contains("media: measuring the relay"), "\(before)")
        let children = Self.children(of: bench.processIdentifier)
        #expect(children.count == 2, "the server and the relay: \(children)")
        let folders = try FileManager.default.contentsOfDirectory(atPath: temporary).filter { $0.hasPrefix("caucus-bench-") }
        try #require(folders.count == 1, "\(folders)")
        let recordings = FileManager.default.enumerator(atPath: temporary + "/" + folders[0])?.allObjects.compactMap { $0 as? String } ?? []
        #expect(recordings.contains { $0.hasSuffix(".webm") }, "\(recordings)")

        kill(bench.processIdentifier, signal)
        // Waited for before its pipes are read to their end: a child left running (the bench
        // as it was) holds them open, and is killed here so that the test fails, not hangs.
        try await offThePool { bench.waitUntilExit() }
        let survivors = children.filter { FileManager.default.fileExists(atPath: "/proc/\($0)") }
        for child in survivors { kill(child, SIGKILL) }
        #expect(survivors.isEmpty, "children left running: \(survivors)")
        let after = try await offThePool { () -> String in
            _ = output.fileHandleForReading.readDataToEndOfFile()
            return String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
        #expect(bench.terminationReason == .exit, "ended by its handler's exit, not by the signal's default action")
        #expect(bench.terminationStatus == 128 + signal)
        #expect(after.contains("bench: stopped by signal \(signal)"), "\(after)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [])
    }

    /// The processes whose parent is `pid` (from /proc/*/stat: the field after the command's
    /// closing parenthesis is the state, then the parent).
    static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { candidate in
            guard let stat = try? String(contentsOfFile: "/proc/\(candidate)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && Int32(fields[1]) == pid
        }
    }
}
