import CaucusMedia
import CaucusRecording
@testable import CaucusSFU
@testable import CaucusServer
import Foundation
import Logging
import Testing

/// A recorded user is recorded only in the kinds it publishes. The engine hands the recorder
/// whatever a recorded publisher's peer sends, and a client may go on sending audio after it
/// stopped publishing it (a mute from a client that keeps its track running, as aiortc's does):
/// the server no longer forwards that audio, and none of it may reach the files
/// (`test_media_recording.py` shows it end to end).
@Suite struct SessionRecorderPublishingTests {
    @Test func audioSentWhilePublishedIsRecorded() throws {
        #expect(try recordedFiles(publishing: [.audio, .video]) == ["u1-audio-0.webm"])
    }

    @Test func audioSentAfterAMuteIsNotRecorded() throws {
        #expect(try recordedFiles(publishing: [.video]) == [])
    }

    /// One second of Opus packets (after a sender report) from user 1 in the recorded main
    /// session, publishing `publishing`; the `.webm` files the main session's folder then holds.
    private func recordedFiles(publishing: Set<TimelineEvent.MediaKind>) throws -> [String] {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-recorder-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let recorder = SessionRecorder(
            layout: RecordingLayout(dataDirectory: data), quota: RecordingQuota(limit: nil), logger: Logger(label: "test"))
        let picture = RecordingRoster.Picture(
            recorded: [.main], people: [1: .init(name: "Ann", location: .main, publishing: publishing)])
        let record = RecordingSessionRecord(app: "development", session: 1, name: "class", createdAt: 0)
        let start = Duration.seconds(1_000)
        recorder.update(RecordingHandover(record: record, picture: picture, wallClock: 1_795_000_000_000), now: start)

        let stream = PublishedStream(publisher: 1, kind: .audio)
        let (ssrc, origin): (UInt32, UInt32) = (0x1234_5678, 90_000)
        let report = RTCPSenderReport(ssrc: ssrc, ntpTimestamp: 3_900_000_000 << 32, rtpTimestamp: origin, packetCount: 0, octetCount: 0)
        recorder.write(.senderReport(.init(stream: stream, clockRate: 48_000, report: report, isForwardedLayer: true, arrival: nil)), arrival: start)
        recorder.writeOpus(0..<50, of: stream, ssrc: ssrc, origin: origin, from: start)
        recorder.stopAll(reason: "stopped", now: start + .seconds(1))
        #expect(recorder.takeFailures().isEmpty)
        let folder = data + "/" + RecordingLayout.folderName + "/1/main"
        return try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".webm") }.sorted()
    }
}
