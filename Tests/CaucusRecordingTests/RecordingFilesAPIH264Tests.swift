import CaucusMediaTestSupport
import CaucusRecording
import CaucusTestSupport
import Foundation
import Testing

/// The control API over an H.264 recording: a Matroska file, listed as `h264` and served as
/// `video/x-matroska`, whole and by range, byte for byte.
extension RecordingFilesAPITests {
    @Test func anH264RecordingIsListedAsH264AndServedAsMatroska() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.stop() }
        let units = try await X264Stream.accessUnits(width: 320, height: 240, rate: 15, seconds: 2, keyframeInterval: 15)
        let cy = SyntheticPublisher(
            name: "u3", audioSSRC: 0xA3, videoSSRC: 0xB3, audioBase: 0, videoBase: 5, wallClockAtZero: 3_900_000_200, audio: nil,
            video: 0...3, h264: units)
        let record = RecordingSessionRecord(app: ServerProcess.app.key, session: Self.session, name: "Class", createdAt: 1_795_000_000_000)
        let run = try RecordingRun.of(
            [cy], folder: try fixture.layout.prepare(record, location: .room(3)), location: "room-3", wallClock: Int64(Self.wallClock))
        // The track's first packet cannot be known to start a frame (an H.264 payload does not
        // say so; the packet before it does), so the file starts at the IDR at 1 s.
        #expect(run.counters(0xB3)?.framesWritten == 31, "\(String(describing: run.counters(0xB3)))")

        let list = try await fixture.get("/v1/sessions/41/recordings")
        let recordings = try #require(list.json["recordings"] as? [[String: Any]], "\(list.text)")
        let listed = try #require(recordings.first { $0["location"] as? String == "room-3" }, "\(list.text)")
        #expect(recordings.filter { $0["location"] as? String == "room-3" }.count == 1)
        #expect(listed["file"] as? String == "u3-video-0.mkv" && listed["codec"] as? String == "h264" && listed["kind"] as? String == "video")
        #expect(listed["url"] as? String == "/v1/sessions/41/recordings/room-3/u3-video-0.mkv")
        let duration = try #require(listed["duration"] as? Int, "\(listed)")
        #expect(duration == 2_000, "\(duration) ms: 30 frames after the first")

        let path = fixture.layout.root + "/41/room-3/u3-video-0.mkv"
        let disk = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let whole = try await fixture.get("/v1/sessions/41/recordings/room-3/u3-video-0.mkv")
        #expect(whole.status == 200 && whole.body == disk, "\(whole.status): \(whole.body.count) bytes of \(disk.count)")
        #expect(whole.headers["content-type"] == "video/x-matroska")
        let part = try await fixture.get("/v1/sessions/41/recordings/room-3/u3-video-0.mkv", range: "bytes=100-199")
        #expect(part.status == 206 && part.body == Array(disk[100...199]) && part.headers["content-type"] == "video/x-matroska")
        let probe = try await OracleTools.probe(path)
        #expect(probe.streams.first?["codec_name"] as? String == "h264" && probe.streams.first?["width"] as? Int == 320, "\(probe)")
        #expect(abs((RecordingOracleTests.double(probe.format["duration"]) ?? 0) * 1_000 - Double(duration)) < 100)
        // Another extension, or a name that only looks like one, is refused.
        for bad in ["u3-video-0.mp4", "u3-video-0.mkv.txt", "u3.video-0.mkv"] {
            let reply = try await fixture.get("/v1/sessions/41/recordings/room-3/" + bad)
            #expect(reply.status == 400, "\(bad): \(reply.status)")
        }
    }
}
