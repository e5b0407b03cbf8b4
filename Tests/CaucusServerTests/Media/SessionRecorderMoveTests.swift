import CaucusMedia
import CaucusRecording
@testable import CaucusSFU
@testable import CaucusServer
import Foundation
import Logging
import Testing

/// A publisher moved into another recorded location is recorded there at once: the location's
/// clock is handed the publisher's latest sender reports, rather than waiting for the next
/// (one every 2.5–7.5 s for Chromium's audio), which would lose the first seconds of the move.
@Suite struct SessionRecorderMoveTests {
    @Test func aMovedPublishersAudioIsRecordedInTheNewRoomWithoutANewReport() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-recorder-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let recorder = SessionRecorder(
            layout: RecordingLayout(dataDirectory: data), quota: RecordingQuota(limit: nil), logger: Logger(label: "test"))
        let record = RecordingSessionRecord(app: "development", session: 1, name: "class", createdAt: 0)
        func picture(_ location: RecordingLocation) -> RecordingRoster.Picture {
            RecordingRoster.Picture(recorded: [.main, .room(1)], people: [1: .init(name: "Ann", location: location, publishing: [.audio])])
        }
        let start = Duration.seconds(1_000)
        recorder.update(RecordingHandover(record: record, picture: picture(.main), wallClock: 1_795_000_000_000), now: start)

        let stream = PublishedStream(publisher: 1, kind: .audio)
        let (ssrc, origin): (UInt32, UInt32) = (0x1234_5678, 90_000)
        let report = RTCPSenderReport(ssrc: ssrc, ntpTimestamp: 3_900_000_000 << 32, rtpTimestamp: origin, packetCount: 0, octetCount: 0)
        recorder.write(.senderReport(.init(stream: stream, clockRate: 48_000, report: report, isForwardedLayer: true, arrival: nil)), arrival: start)
        recorder.writeOpus(0..<25, of: stream, ssrc: ssrc, origin: origin, from: start)
        // Half a second in, Ann moves into room 1; no sender report comes after.
        recorder.update(
            RecordingHandover(record: record, picture: picture(.room(1)), wallClock: 1_795_000_000_500), now: start + .milliseconds(500))
        recorder.writeOpus(25..<50, of: stream, ssrc: ssrc, origin: origin, from: start)
        recorder.stopAll(reason: "stopped", now: start + .seconds(1))
        #expect(recorder.takeFailures().isEmpty)

        let session = data + "/" + RecordingLayout.folderName + "/1"
        let lines = try String(contentsOfFile: session + "/room-1/timeline.jsonl", encoding: .utf8).split(separator: "\n")
        let started = lines.filter { $0.contains("\"fileStarted\"") }
        #expect(started.count == 1, "Ann's audio starts in room 1 without a new report: \(lines)")
        #expect(started.first?.contains("\"t\":500,") == true, "at the move, half a second after the room's recording began: \(started)")
        let files = try FileManager.default.contentsOfDirectory(atPath: session + "/room-1").filter { $0.hasSuffix(".webm") }
        #expect(files.count == 1, "\(files)")
    }
}
