import CaucusProcessTestSupport
import CaucusTestSupport
import Foundation
import Testing

/// `caucus bench media` end to end on a small session: the real binary, its child server and
/// relay, users of the client-role stack in two rooms. Its figures are not checked (no timing
/// in tests), only that it runs, forwards, keeps rooms apart and completes the move.
@Suite(.serialized) struct MediaBenchSmokeTests {
    @Test func aSmallMediaBenchRunsAndKeepsRoomsApart() async throws {
        let process = Process()
        process.executableURL = ServerProcess.executable
        process.arguments = ["bench", "media", "--users", "8", "--rooms", "2", "--seconds", "1", "--json"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let (status, data) = try await offThePool {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, data)
        }
        #expect(status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: String], "\(String(decoding: data, as: UTF8.self))")
        #expect(report["users who heard another room"] == "0")
        #expect(report["users with no audio from the new room within 10 s"] == "0")
        // 8 users in rooms of 4, three slots each: each receives the other three.
        let forwarded = report["caucus serve: forwarded"].flatMap { Int($0.split(separator: " ").first ?? "") } ?? 0
        #expect(forwarded > 0)
        let relayed = report["bare UDP relay: forwarded"].flatMap { Int($0.split(separator: " ").first ?? "") } ?? 0
        #expect(relayed > 0)
    }
}
