import CaucusMedia
import CaucusRecording
@testable import CaucusSFU
@testable import CaucusServer
import Foundation
import Logging
import Testing

/// A file that cannot be written stops its location, and every other file there still ends
/// whole: its last cluster written and its end on the timeline.
@Suite struct SessionRecorderFailureTests {
    @Test func aPublishersFileThatFailsLeavesItsOtherFilesToEndWhole() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-recorder-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let layout = RecordingLayout(dataDirectory: data)
        let recorder = SessionRecorder(layout: layout, quota: RecordingQuota(limit: nil), logger: Logger(label: "test"))
        let record = RecordingSessionRecord(app: "development", session: 1, name: "class", createdAt: 0)
        let start: Duration = .seconds(1_000)
        let picture = RecordingRoster.Picture(recorded: [.main], people: [1: .init(name: "Ann", location: .main, publishing: [.audio, .video])])
        recorder.update(RecordingHandover(record: record, picture: picture, wallClock: 1_795_000_000_000), now: start)
        let (audio, video) = (PublishedStream(publisher: 1, kind: .audio), PublishedStream(publisher: 1, kind: .video))
        for (stream, ssrc, rate) in [(audio, UInt32(0xA0), 48_000), (video, UInt32(0xB0), 90_000)] {
            let report = RTCPSenderReport(ssrc: ssrc, ntpTimestamp: 3_900_000_000 << 32, rtpTimestamp: 0, packetCount: 0, octetCount: 0)
            recorder.write(.senderReport(.init(stream: stream, clockRate: rate, report: report, isForwardedLayer: true, arrival: nil)), arrival: start)
        }
        // Ann's video starts its file (a VP8 keyframe, then four other frames, each in one
        // packet), its one cluster held until the next starts.
        let keyframe: [UInt8] = [0x10, 0x50, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x40, 0x01, 0xF0, 0x00, 0x07]
        let interframe: [UInt8] = [0x10, 0x31, 0x02, 0x00, 0x07]
        for index in 0..<5 {
            let packet = RTPPacket(
                marker: true, payloadType: 96, sequenceNumber: UInt16(index), timestamp: UInt32(index * 9_000), ssrc: 0xB0,
                payload: index == 0 ? keyframe : interframe)
            recorder.write(.rtp(stream: video, codec: .vp8, clockRate: 90_000, datagram: packet.encoded()[...]), arrival: start + .milliseconds(100 * index))
        }
        let main = layout.locationFolder(session: 1, location: .main)
        #expect(FileManager.default.fileExists(atPath: main + "/u1-video-0.webm"))
        // Her audio's file cannot be made (a file of its name is there): the location stops.
        #expect(FileManager.default.createFile(atPath: main + "/u1-audio-0.webm", contents: Data("not ours".utf8)))
        recorder.writeOpus(0..<3, of: audio, ssrc: 0xA0, origin: 0, from: start + .milliseconds(500))
        #expect(recorder.takeFailures().map(\.locations) == [[.main]])

        let lines = try TimelineReader.lines(Data(contentsOf: URL(fileURLWithPath: main + "/timeline.jsonl")), strict: true)
        let ended = lines.filter { $0.event == "fileEnded" }
        #expect(ended.map(\.file) == ["u1-video-0.webm"], "\(lines.map(\.event))")
        #expect(lines.last?.event == "recordingStopped")
        // The video file holds its frames: its cluster was written as it ended, its duration with it.
        #expect(WebMDurationReader.durationMilliseconds(ofFileAt: main + "/u1-video-0.webm") == 400)
    }
}

/// A stream whose codec changes on the same SSRC (a client that renegotiates VP8 to H.264 and
/// keeps its SSRC) ends its file there: the new codec's packets never go into the old file.
@Suite struct SessionRecorderCodecChangeTests {
    @Test func aCodecChangeOnOneSSRCEndsTheFileThere() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-recorder-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let layout = RecordingLayout(dataDirectory: data)
        let recorder = SessionRecorder(layout: layout, quota: RecordingQuota(limit: nil), logger: Logger(label: "test"))
        let record = RecordingSessionRecord(app: "development", session: 1, name: "class", createdAt: 0)
        let start: Duration = .seconds(1_000)
        let picture = RecordingRoster.Picture(recorded: [.main], people: [1: .init(name: "Ann", location: .main, publishing: [.video])])
        recorder.update(RecordingHandover(record: record, picture: picture, wallClock: 1_795_000_000_000), now: start)
        let video = PublishedStream(publisher: 1, kind: .video)
        let report = RTCPSenderReport(ssrc: 0xB0, ntpTimestamp: 3_900_000_000 << 32, rtpTimestamp: 0, packetCount: 0, octetCount: 0)
        recorder.write(.senderReport(.init(stream: video, clockRate: 90_000, report: report, isForwardedLayer: true, arrival: nil)), arrival: start)
        let keyframe: [UInt8] = [0x10, 0x50, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x40, 0x01, 0xF0, 0x00, 0x07]
        let interframe: [UInt8] = [0x10, 0x31, 0x02, 0x00, 0x07]
        // 0.4 s of VP8, then the same SSRC goes on in "H.264" (an IDR slice alone: no file yet).
        for index in 0..<10 {
            let payload: [UInt8] = index == 0 ? keyframe : index < 5 ? interframe : [0x65, 0x88, 0x84, 0x00, 0x33]
            let packet = RTPPacket(
                marker: true, payloadType: index < 5 ? 96 : 102, sequenceNumber: UInt16(index), timestamp: UInt32(index * 9_000), ssrc: 0xB0,
                payload: payload)
            recorder.write(
                .rtp(stream: video, codec: index < 5 ? .vp8 : .h264, clockRate: 90_000, datagram: packet.encoded()[...]),
                arrival: start + .milliseconds(100 * index))
        }
        let main = layout.locationFolder(session: 1, location: .main)
        let lines = try TimelineReader.lines(Data(contentsOf: URL(fileURLWithPath: main + "/timeline.jsonl")), strict: true)
        #expect(lines.filter { $0.event == "fileEnded" }.map(\.file) == ["u1-video-0.webm"], "ended at the change: \(lines.map(\.event))")
        #expect(WebMDurationReader.durationMilliseconds(ofFileAt: main + "/u1-video-0.webm") == 400, "VP8's frames alone")
        recorder.stopAll(reason: "stopped", now: start + .seconds(1))
        #expect(recorder.takeFailures().isEmpty)
    }
}
