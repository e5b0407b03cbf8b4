import CaucusMedia
import CaucusRecording
@testable import CaucusSFU
@testable import CaucusServer
import Foundation
import Logging
import Testing

/// A session recorder writing into a fresh data folder, with Ann (user 1) in the main session,
/// recorded, publishing `kinds`, and a sender report for each of her tracks.
struct AnnRecorded {
    static let (audioSSRC, videoSSRC): (UInt32, UInt32) = (0xA0, 0xB0)
    static let (audio, video) = (PublishedStream(publisher: 1, kind: .audio), PublishedStream(publisher: 1, kind: .video))
    static let keyframe: [UInt8] = [0x10, 0x50, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x40, 0x01, 0xF0, 0x00, 0x07]
    static let interframe: [UInt8] = [0x10, 0x31, 0x02, 0x00, 0x07]

    let data = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-recorder-\(UUID().uuidString)").path
    let layout: RecordingLayout
    let recorder: SessionRecorder
    let start: Duration = .seconds(1_000)

    init(publishing kinds: Set<TimelineEvent.MediaKind>) {
        layout = RecordingLayout(dataDirectory: data)
        recorder = SessionRecorder(layout: layout, quota: RecordingQuota(limit: nil), logger: Logger(label: "test"))
        let record = RecordingSessionRecord(app: "development", session: 1, name: "class", createdAt: 0)
        let picture = RecordingRoster.Picture(recorded: [.main], people: [1: .init(name: "Ann", location: .main, publishing: kinds)])
        recorder.update(RecordingHandover(record: record, picture: picture, wallClock: 1_795_000_000_000), now: start)
        for (stream, ssrc, rate) in [(Self.audio, Self.audioSSRC, 48_000), (Self.video, Self.videoSSRC, 90_000)] {
            let report = RTCPSenderReport(ssrc: ssrc, ntpTimestamp: 3_900_000_000 << 32, rtpTimestamp: 0, packetCount: 0, octetCount: 0)
            recorder.write(.senderReport(.init(stream: stream, clockRate: rate, report: report, isForwardedLayer: true, arrival: nil)), arrival: start)
        }
    }

    var main: String { layout.locationFolder(session: 1, location: .main) }

    /// Packet `index` of Ann's video, 100 ms apart, one frame each: `payload` as `codec`.
    func video(_ index: Int, _ payload: [UInt8], codec: TrackRecorder.Codec = .vp8) {
        let packet = RTPPacket(
            marker: true, payloadType: codec == .vp8 ? 96 : 102, sequenceNumber: UInt16(index), timestamp: UInt32(index * 9_000),
            ssrc: Self.videoSSRC, payload: payload)
        recorder.write(.rtp(stream: Self.video, codec: codec, clockRate: 90_000, datagram: packet.encoded()[...]), arrival: start + .milliseconds(100 * index))
    }

    func timeline() throws -> [TimelineReader.Line] {
        try TimelineReader.lines(Data(contentsOf: URL(fileURLWithPath: main + "/timeline.jsonl")), strict: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: data) }
}

/// A file that cannot be written stops its location, and every other file there still ends
/// whole: its last cluster written and its end on the timeline.
@Suite struct SessionRecorderFailureTests {
    @Test func aPublishersFileThatFailsLeavesItsOtherFilesToEndWhole() throws {
        let ann = AnnRecorded(publishing: [.audio, .video])
        defer { ann.remove() }
        // Ann's video starts its file (a VP8 keyframe, then four other frames), its one
        // cluster held until the next starts.
        for index in 0..<5 { ann.video(index, index == 0 ? AnnRecorded.keyframe : AnnRecorded.interframe) }
        #expect(FileManager.default.fileExists(atPath: ann.main + "/u1-video-0.webm"))
        // Her audio's file cannot be made (a file of its name is there): the location stops.
        #expect(FileManager.default.createFile(atPath: ann.main + "/u1-audio-0.webm", contents: Data("not ours".utf8)))
        ann.recorder.writeOpus(0..<3, of: AnnRecorded.audio, ssrc: AnnRecorded.audioSSRC, origin: 0, from: ann.start + .milliseconds(500))
        #expect(ann.recorder.takeFailures().map(\.locations) == [[.main]])

        let lines = try ann.timeline()
        #expect(lines.filter { $0.event == "fileEnded" }.map(\.file) == ["u1-video-0.webm"], "\(lines.map(\.event))")
        #expect(lines.last?.event == "recordingStopped")
        // The video file holds its frames: its cluster was written as it ended, its duration with it.
        #expect(WebMDurationReader.durationMilliseconds(ofFileAt: ann.main + "/u1-video-0.webm") == 400)
    }
}

/// A stream whose codec changes on the same SSRC (a client that renegotiates VP8 to H.264 and
/// keeps its SSRC) ends its file there: the new codec's packets never go into the old file.
@Suite struct SessionRecorderCodecChangeTests {
    @Test func aCodecChangeOnOneSSRCEndsTheFileThere() throws {
        let ann = AnnRecorded(publishing: [.video])
        defer { ann.remove() }
        // 0.4 s of VP8, then the same SSRC goes on in "H.264" (an IDR slice alone: no file yet).
        for index in 0..<5 { ann.video(index, index == 0 ? AnnRecorded.keyframe : AnnRecorded.interframe) }
        for index in 5..<10 { ann.video(index, [0x65, 0x88, 0x84, 0x00, 0x33], codec: .h264) }
        let lines = try ann.timeline()
        #expect(lines.filter { $0.event == "fileEnded" }.map(\.file) == ["u1-video-0.webm"], "ended at the change: \(lines.map(\.event))")
        #expect(WebMDurationReader.durationMilliseconds(ofFileAt: ann.main + "/u1-video-0.webm") == 400, "VP8's frames alone")
        ann.recorder.stopAll(reason: "stopped", now: ann.start + .seconds(1))
        #expect(ann.recorder.takeFailures().isEmpty)
    }
}
