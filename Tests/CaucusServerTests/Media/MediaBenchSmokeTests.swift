import CaucusProcessTestSupport
import CaucusTestSupport
import Foundation
import Testing

/// `caucus bench media` end to end on a small classroom: the real binary, its child server and
/// relay, 1 host + 12 users of the client-role stack publishing audio and video in the main
/// session, then started into 4 rooms of 3. Its figures are not checked (no timing in tests),
/// only that it runs, forwards, keeps rooms apart and brings every user its new room.
@Suite(.serialized) struct MediaBenchSmokeTests {
    @Test func aSmallClassroomWithMediaRunsAndKeepsRoomsApart() async throws {
        let report = try await bench(["--users", "12", "--rooms", "4", "--video", "--seconds", "1"])
        #expect(report["users who heard another room"] == "0")
        #expect(report["users with no audio from the new room within 15 s"] == "0")
        #expect(report["video slots with no keyframe from the new room within 15 s"] == "0")
        // Every user has two roommates to hear: it is timed, unless its audio slots carried
        // roommates in the main session already and still do.
        let timed = Int(report["start sent → first audio from the new room, count"] ?? "") ?? -1
        let untimed = Int(report["users whose audio slots kept a roommate (nothing to switch, not timed)"] ?? "") ?? -1
        #expect(timed > 0)
        #expect(timed + untimed == 12)
        // Each user's two fillable video slots either switched to a roommate (timed) or kept one.
        let switched = Int(report["start sent → first keyframe in each video slot, count"] ?? "") ?? -1
        let kept = Int(report["video slots that kept a roommate (nothing to switch)"] ?? "") ?? -1
        #expect(switched > 0)
        #expect(switched + kept == 24)
        #expect(packets(report["caucus serve: forwarded"]) > 0)
        #expect(packets(report["bare UDP relay: forwarded"]) > 0)
        // Each process's CPU per packet, split into user space and the kernel: the parts add up
        // to the whole (to the printed figures' rounding), and the gap is the difference.
        let users = microseconds(report["… of it in user space: caucus serve, relay"])
        let kernels = microseconds(report["… in the kernel: caucus serve, relay"])
        let totals = [microseconds(report["caucus serve: CPU per forwarded packet"]), microseconds(report["bare UDP relay: CPU per forwarded packet"])]
        try #require(users.count == 2 && kernels.count == 2 && totals.map(\.count) == [1, 1], "\(report)")
        for process in 0..<2 {
            #expect(users[process] > 0)
            #expect(abs(users[process] + kernels[process] - totals[process][0]) <= 0.02, "\(report)")
        }
        let beyond = microseconds(report["user space beyond the relay's, per forwarded packet"])
        #expect(beyond.count == 1 && abs(beyond[0] - (users[0] - users[1])) <= 0.02, "\(report)")
    }

    /// Six rooms of five: the layout the bench refused before (`assign refused: emptyUserList`);
    /// before the start, two speakers take turns in the main session (RFC 6464 levels in their
    /// packets), and the slots follow them.
    @Test func roomsOfFiveRun() async throws {
        let report = try await bench(["--users", "30", "--room-size", "5", "--seconds", "1", "--speaker-turns", "2"])
        #expect(report["session"]?.contains("into 6 rooms of 5") == true)
        #expect(report["users who heard another room"] == "0")
        #expect(report["users with no audio from the new room within 15 s"] == "0")
        #expect(Int(report["audio slots switched while they took turns"] ?? "") ?? 0 > 0)
        #expect(report["routing updates while 2 speakers took turns in the main session"]?.hasPrefix("0,") == false)
    }

    /// The server's data folder (its recordings among it: about 145 MB a run of 50 recorded
    /// rooms) is the bench's own, and goes when the bench ends.
    @Test func aRecordedRunLeavesNoDataFolderBehind() async throws {
        let temporary = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        // Whether the server's folder showed up under the TMPDIR the bench was given, while it ran.
        let seen = Task { () -> Bool in
            while !Task.isCancelled {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
                if names.contains(where: { $0.hasPrefix("caucus-bench-") }) { return true }
                try? await Task.sleep(for: .milliseconds(50))
            }
            return false
        }
        let (status, output, error) = try await ServerProcess.runToEnd(
            ["bench", "media", "--users", "6", "--rooms", "2", "--seconds", "1", "--record", "--record-rounds", "1", "--json"],
            environment: ["TMPDIR": temporary + "/"])
        seen.cancel()
        #expect(status == 0, "\(error)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String], "\(output)")
        #expect(report["recording every room: forwarded"] != nil)
        // The writer's CPU is read from the server (`caucus_recording_writer_cpu_seconds_total`):
        // a round that recorded counted some.
        let writer = report["recording writer: CPU per forwarded packet, by round"] ?? ""
        #expect(Double(writer.split(separator: " ").first ?? "") ?? 0 > 0, "\(writer)")
        #expect(await seen.value)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [])
    }

    @Test func aShapeThatLeavesSomeoneAloneIsRefusedBeforeAnythingStarts() async throws {
        let (status, _, error) = try await run(["--users", "9", "--room-size", "2"])
        #expect(status != 0)
        #expect(error.contains("fewer than 2 users"))
    }

    private func bench(_ arguments: [String]) async throws -> [String: String] {
        let (status, output, error) = try await run(arguments + ["--json"])
        #expect(status == 0, "\(error)")
        return try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String], "\(output)")
    }

    private func run(_ arguments: [String]) async throws -> (Int32, String, String) {
        try await ServerProcess.runToEnd(["bench", "media"] + arguments)
    }

    /// The figures of `1.23 µs` or `1.23, 4.56 µs`; empty when it is not one of those.
    private func microseconds(_ figure: String?) -> [Double] {
        guard let figure, figure.hasSuffix(" µs") else { return [] }
        let numbers = figure.dropLast(" µs".count).split(separator: ", ").map { Double($0) }
        return numbers.contains(nil) ? [] : numbers.compactMap { $0 }
    }

    private func packets(_ figure: String?) -> Int { figure.flatMap { Int($0.split(separator: " ").first ?? "") } ?? 0 }
}
