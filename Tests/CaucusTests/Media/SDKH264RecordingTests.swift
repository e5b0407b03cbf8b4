import Caucus
import CaucusMedia
import CaucusMediaTestSupport
import CaucusRecording
import Foundation
import Testing

/// An H.264 publisher recorded from the forwarding path: Ann's SDK (`videoCodec = .h264`)
/// sends real x264 access units to a real server while the host records the main session;
/// her video lands in a Matroska file the timeline names as H.264 of the encoder's size, which
/// FFmpeg reads as such and decodes without an error.
@Suite(.serialized, .enabled(if: X264Stream.isAvailable, "needs Debian's ffmpeg (libx264): scripts/test installs it"))
struct SDKH264RecordingTests {
    @Test func anH264PublisherIsRecordedIntoAMatroskaFile() async throws {
        // 2 s looped: an IDR every second, the pictures of FFmpeg's test source.
        let units = try await X264Stream.accessUnits(width: 320, height: 240, rate: 10, seconds: 2, keyframeInterval: 10)
        let server = try await TestServer.start()
        var configuration = Client.configuration
        configuration.videoCodec = .h264
        let host = try await server.client("Teacher", role: .host)
        let ann = try await server.client("Ann", configuration: configuration)
        let annID = try ann.id
        try await ann.session.videoHelper.start()
        let video = ann.session.videoHelper
        let publisher = Task {
            var index = 0
            while !Task.isCancelled {
                let unit = units[index % units.count]
                _ = try? video.send(
                    EncodedFrame(codec: .h264, bytes: unit, timestamp: UInt32(index * 9_000), isKeyframe: X264Stream.isKeyframe(unit)))
                index += 1
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        defer { publisher.cancel() }
        let manager = try #require(host.session.subsessionManager)
        try await manager.startRecording([.main])
        try await Task.sleep(for: .seconds(5))
        try await manager.stopAllRecording()

        let root = server.running.dataDirectory + "/" + RecordingLayout.folderName
        let sessions = try FileManager.default.contentsOfDirectory(atPath: root)
        try #require(sessions.count == 1, "one session recorded: \(sessions)")
        let main = root + "/" + sessions[0] + "/main"
        try await eventually("the timeline ended") {
            (try? String(contentsOfFile: main + "/timeline.jsonl", encoding: .utf8))?.contains("recordingStopped") == true
        }
        let recorded = try RecordedLocation.read(folder: main, strict: true)
        let name = "u\(annID.rawValue)-video-0.mkv"
        #expect(recorded.files.map(\.name) == [name])
        let file = try #require(recorded.files.first)
        #expect(file.codec == "h264" && file.kind == .video && file.ended, "\(file)")
        let duration = try #require(file.durationMilliseconds)
        #expect(duration > 2_000, "\(duration) ms of about 5 s recorded")
        let lines = try TimelineReader.lines(try Data(contentsOf: URL(fileURLWithPath: main + "/timeline.jsonl")), strict: true)
        let started = try #require(lines.first { $0.event == "fileStarted" && $0.file == name })
        #expect(started.codec == "h264" && started.width == 320 && started.height == 240, "\(started)")

        if FFprobe.isInstalled {
            let stream = try FFprobe.videoStream(of: main + "/" + name)
            #expect(stream.codec == "h264" && stream.width == 320 && stream.height == 240, "\(stream)")
            #expect(abs(try FFprobe.duration(of: main + "/" + name) * 1_000 - Double(duration)) < 1_500)
            #expect(try FFprobe.decodingErrors(of: main + "/" + name) == "", "FFmpeg decodes every frame")
        }
        publisher.cancel()
        try await ann.session.leave()
        try await host.session.leave()
        await server.stop()
    }
}
