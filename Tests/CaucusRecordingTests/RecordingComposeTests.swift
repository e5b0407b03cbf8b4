import CaucusRecording
import CaucusTestSupport
import Foundation
import Testing

/// `caucus recording compose`, the real command driving the real ffmpeg over files the real
/// writer made; ffprobe reads what it made.
@Suite(.serialized, .enabled(if: OracleTools.available, Comment(rawValue: OracleTools.missing)))
struct RecordingComposeTests {
    static var caucus: String { ServerProcess.executable.path }

    static func compose(_ arguments: [String], path: String? = nil) async throws -> OracleTools.Result {
        var environment = ProcessInfo.processInfo.environment
        if let path { environment["PATH"] = path }
        return try await OracleTools.run(caucus, ["recording", "compose"] + arguments, environment: environment)
    }

    static func temporaryFolder() throws -> String {
        let folder = CaucusTestSupport.temporaryFolder()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func aRoomOfTwoPublishersBecomesOneFileWithAGridAndMixedAudio() async throws {
        // Bob comes a second and a half after Ann and leaves before her: placed by the timeline.
        let ann = SyntheticPublisher(
            name: "u1", audioSSRC: 0xA0, videoSSRC: 0xB0, audioBase: 7, videoBase: 99, wallClockAtZero: 3_900_000_000, audio: 0...4, video: 0...4,
            claps: [1.0])
        let bob = SyntheticPublisher(
            name: "u2", audioSSRC: 0xA1, videoSSRC: 0xB1, audioBase: 70, videoBase: 990, wallClockAtZero: 3_900_000_009, audio: 1.5...3.5,
            video: 1.5...3.5, claps: [2.0])
        let run = try RecordingRun.of([ann, bob], location: "room-2")
        let location = try RecordedLocation.read(folder: run.folder.path, strict: true)
        #expect(location.files.count == 4)
        let starts = location.files.compactMap(\.start)
        let ends = location.files.compactMap { file in file.start.flatMap { start in file.durationMilliseconds.map { start + $0 } } }
        let expected = Double(try #require(ends.max()) - (try #require(starts.min()))) / 1000
        #expect(expected > 3.5, "Ann's files span about 4 s: \(expected)")

        let output = try Self.temporaryFolder() + "/room.webm"
        let result = try await Self.compose([run.folder.path, "--out", output])
        #expect(result.status == 0, "compose: \(result.errors)")
        #expect(result.text.contains("2 video tile(s) and 2 audio file(s) of room-2"), "\(result.text)")
        let probe = try await OracleTools.probe(output)
        #expect(probe.status == 0 && probe.errors.isEmpty, "\(probe.errors)")
        let video = try #require(probe.streams.first { $0["codec_type"] as? String == "video" }, "\(probe.streams)")
        #expect(probe.streams.contains { $0["codec_type"] as? String == "audio" && $0["codec_name"] as? String == "opus" }, "\(probe.streams)")
        #expect(video["codec_name"] as? String == "vp8")
        // Two tiles side by side.
        #expect(video["width"] as? Int == 640 && video["height"] as? Int == 240, "\(video)")
        let duration = try #require(RecordingOracleTests.double(probe.format["duration"]), "\(probe.format)")
        #expect(abs(duration - expected) < 0.5, "composed \(duration) s; the files end \(expected) s after the first starts")
        let frames = try await OracleTools.decodedFrames(output)
        #expect(frames.status == 0 && frames.frames > 50, "\(frames)")

        // Each clap where the timeline puts it: Ann's white frame in the left tile and Bob's in
        // the right one, their bursts in the mix, a second apart (the real instants plus the
        // network's 30 ms, from the earliest file's start).
        let origin = Double(try #require(starts.min())) / 1000
        let expectedClaps = [1.030 - origin, 2.030 - origin]
        let left = try await RecordingSyncTests.videoClaps(output, crop: "crop=320:240:0:0")
        let right = try await RecordingSyncTests.videoClaps(output, crop: "crop=320:240:320:0")
        let heard = try await RecordingSyncTests.audioClaps(output)
        let seen = [left.first, right.first].compactMap { $0 }
        try #require(seen.count == 2 && heard.count == 2, "white frames left \(left), right \(right); bursts \(heard)")
        for (index, expected) in expectedClaps.enumerated() {
            // Video: 25 frames a second from 15, so within two frames; audio within 20 ms.
            #expect(abs(seen[index] - expected) <= 0.080, "clap \(index): seen at \(seen[index]) s, expected \(expected) s")
            #expect(abs(heard[index] - expected) <= 0.020, "clap \(index): heard at \(heard[index]) s, expected \(expected) s")
        }

        // An existing output is kept unless --overwrite.
        let again = try await Self.compose([run.folder.path, "--out", output])
        #expect(again.status != 0 && again.errors.contains("--overwrite"), "\(again.errors)")
        #expect(try await Self.compose([run.folder.path, "--out", output, "--overwrite"]).status == 0)
    }

    @Test func withoutFFmpegItSaysSoAndFails() async throws {
        let run = try RecordingRun.of([
            SyntheticPublisher(name: "u1", audioSSRC: 1, videoSSRC: 2, audioBase: 0, videoBase: 0, wallClockAtZero: 3_900_000_000, audio: 0...1, video: nil)
        ])
        let output = try Self.temporaryFolder() + "/room.webm"
        let result = try await Self.compose([run.folder.path, "--out", output], path: try Self.temporaryFolder())
        #expect(result.status != 0)
        #expect(result.errors.contains("ffmpeg is not installed"), "\(result.errors)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func badInputIsRefusedClearly() async throws {
        let empty = try Self.temporaryFolder()
        let output = try Self.temporaryFolder() + "/room.webm"
        let noTimeline = try await Self.compose([empty, "--out", output])
        #expect(noTimeline.status != 0 && noTimeline.errors.contains("has no timeline.jsonl"), "\(noTimeline.errors)")

        let missing = try await Self.compose([empty + "/nowhere", "--out", output])
        #expect(missing.status != 0 && missing.errors.contains("is not a folder"), "\(missing.errors)")

        let corrupt = try Self.temporaryFolder()
        let lines = [
            #"{"t":0,"event":"recordingStarted","version":1,"location":"main","wallClock":0}"#,
            #"{"t":5,"event":"fileStarted","user":"u1""#,
        ]
        _ = FileManager.default.createFile(atPath: corrupt + "/timeline.jsonl", contents: Data((lines.joined(separator: "\n") + "\n").utf8))
        let badLine = try await Self.compose([corrupt, "--out", output])
        #expect(badLine.status != 0 && badLine.errors.contains("line 2"), "\(badLine.errors)")

        let notStarted = try Self.temporaryFolder()
        _ = FileManager.default.createFile(atPath: notStarted + "/timeline.jsonl", contents: Data(#"{"t":0,"event":"joined","user":"u1","name":"A"}"#.utf8 + [10]))
        let wrongFirst = try await Self.compose([notStarted, "--out", output])
        #expect(wrongFirst.status != 0 && wrongFirst.errors.contains("line 1"), "\(wrongFirst.errors)")

        // A timeline with no file in it: nothing to compose.
        let nothing = try Self.temporaryFolder()
        _ = FileManager.default.createFile(atPath: nothing + "/timeline.jsonl", contents: Data((lines[0] + "\n").utf8))
        let noFiles = try await Self.compose([nothing, "--out", output])
        #expect(noFiles.status != 0 && noFiles.errors.contains("has no recorded file"), "\(noFiles.errors)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
