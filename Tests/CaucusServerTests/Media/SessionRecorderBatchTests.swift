import CaucusMedia
import CaucusRecording
@testable import CaucusSFU
@testable import CaucusServer
import Foundation
import Logging
import Testing

/// Recorded media is written in batches (``RecordedMediaQueue``): held until a batch is full,
/// or until the media loop's tick finds its first item has waited long enough, and never held
/// past a new picture or a stop.
@Suite struct SessionRecorderBatchTests {
    @Test func aBatchWaitsForTheTickThatFindsItDue() throws {
        let recording = try Recording()
        recording.send(packets: 10)
        recording.recorder.tick(now: recording.start + RecordedMediaQueue.patience - .milliseconds(1))
        #expect(try recording.files() == [])
        recording.recorder.tick(now: recording.start + RecordedMediaQueue.patience)
        #expect(try recording.files() == ["u1-audio-0.webm"])
    }

    @Test func aFullBatchIsWrittenAtOnce() throws {
        let recording = try Recording()
        // The sender report and limit − 2 packets wait; the packet that fills the batch writes it.
        recording.send(packets: RecordedMediaQueue.limit - 2)
        #expect(try recording.files() == [])
        recording.send(packets: 1, from: RecordedMediaQueue.limit - 2)
        #expect(try recording.files() == ["u1-audio-0.webm"])
    }

    @Test func aStopWritesWhatWaits() throws {
        let recording = try Recording()
        recording.send(packets: 50)
        recording.recorder.stopAll(reason: "stopped", now: recording.start + .seconds(1))
        #expect(recording.recorder.takeFailures().isEmpty)
        let file = try #require(try recording.files().first)
        let size = try FileManager.default.attributesOfItem(atPath: recording.folder + "/" + file)[.size] as? Int
        // Fifty 5-byte frames and their block headers, past the file's header.
        #expect((size ?? 0) > 50 * 5)
    }

    /// User 1 publishing audio in the recorded main session, its sender report already sent.
    private final class Recording {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-batch-\(UUID().uuidString)").path
        let recorder: SessionRecorder
        let start = Duration.seconds(1_000)
        let stream = PublishedStream(publisher: 1, kind: .audio)
        let (ssrc, origin): (UInt32, UInt32) = (0x1234_5678, 90_000)
        var folder: String { data + "/" + RecordingLayout.folderName + "/1/main" }

        init() throws {
            recorder = SessionRecorder(layout: RecordingLayout(dataDirectory: data), quota: RecordingQuota(limit: nil), logger: Logger(label: "test"))
            let picture = RecordingRoster.Picture(recorded: [.main], people: [1: .init(name: "Ann", location: .main, publishing: [.audio])])
            let record = RecordingSessionRecord(app: "development", session: 1, name: "class", createdAt: 0)
            recorder.update(RecordingHandover(record: record, picture: picture, wallClock: 1_795_000_000_000), engine: ForwardingEngine(), now: start)
            let report = RTCPSenderReport(ssrc: ssrc, ntpTimestamp: 3_900_000_000 << 32, rtpTimestamp: origin, packetCount: 0, octetCount: 0)
            recorder.receive(.senderReport(.init(stream: stream, clockRate: 48_000, report: report, isForwardedLayer: true)), now: start)
        }

        deinit { try? FileManager.default.removeItem(atPath: data) }

        /// `count` 20 ms Opus packets from number `first` on, all arriving at `start`.
        func send(packets count: Int, from first: Int = 0) {
            for index in first..<first + count {
                let packet = RTPPacket(
                    payloadType: 111, sequenceNumber: UInt16(truncatingIfNeeded: index), timestamp: origin &+ UInt32(index * 960), ssrc: ssrc,
                    payload: [0xF8, 0xFF, 0xFE, 0x01, 0x02])
                recorder.receive(.rtp(.init(stream: stream, codec: "opus", clockRate: 48_000, packet: packet.encoded())), now: start)
            }
        }

        func files() throws -> [String] {
            guard FileManager.default.fileExists(atPath: folder) else { return [] }
            return try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".webm") }.sorted()
        }
    }
}
