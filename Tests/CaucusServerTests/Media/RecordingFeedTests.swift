import CaucusMedia
import CaucusRecording
@testable import CaucusSFU
@testable import CaucusServer
import CaucusStore
import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing

/// A media loop hands recorded media to the writer in batches (``RecordingFeed``,
/// ``RecordedMediaQueue``): held until a batch is full, or until the loop's tick finds its first
/// item has waited long enough, and never held past a new picture or a stop. The writer writes
/// on its own queue (``RecordingWriter``); what the recorders ask back comes to the loop's tick.
@Suite struct RecordingFeedTests {
    @Test func aBatchWaitsForTheTickThatFindsItDue() async throws {
        let recording = try Recording()
        recording.send(packets: 10)
        _ = recording.feed.tick(now: recording.start + RecordedMediaQueue.patience - .milliseconds(1))
        await recording.context.writer.drain()
        #expect(try recording.files() == [])
        _ = recording.feed.tick(now: recording.start + RecordedMediaQueue.patience)
        await recording.context.writer.drain()
        #expect(try recording.files() == ["u1-audio-0.webm"])
    }

    @Test func aFullBatchIsWrittenAtOnce() async throws {
        let recording = try Recording()
        // The sender report and limit − 2 packets wait; the packet that fills the batch sends it.
        recording.send(packets: RecordedMediaQueue.limit - 2)
        await recording.context.writer.drain()
        #expect(try recording.files() == [])
        recording.send(packets: 1, from: RecordedMediaQueue.limit - 2)
        await recording.context.writer.drain()
        #expect(try recording.files() == ["u1-audio-0.webm"])
    }

    @Test func aStopWritesWhatWaits() async throws {
        let recording = try Recording()
        recording.send(packets: 50)
        recording.feed.stopAll(reason: "stopped", now: recording.start + .seconds(1))
        await recording.context.writer.drain()
        #expect(recording.failures.withLockedValue { $0 }.isEmpty)
        let file = try #require(try recording.files().first)
        let size = try FileManager.default.attributesOfItem(atPath: recording.folder + "/" + file)[.size] as? Int
        // Fifty 5-byte frames and their block headers, past the file's header.
        #expect((size ?? 0) > 50 * 5)
    }

    /// The media before a picture is written under it: a picture that stops recording the main
    /// session comes after the packets that waited, and they are in its file.
    @Test func aPictureComesAfterTheMediaBeforeIt() async throws {
        let recording = try Recording()
        recording.send(packets: 50)
        recording.feed.update(recording.handover(recorded: []), engine: recording.engine, now: recording.start + .seconds(1))
        await recording.context.writer.drain()
        let file = try #require(try recording.files().first)
        let size = try FileManager.default.attributesOfItem(atPath: recording.folder + "/" + file)[.size] as? Int
        #expect((size ?? 0) > 50 * 5)
        #expect(recording.engine.recordedPublishers == [])
    }

    /// The engine hands over the media of everyone in a recorded location from the picture on,
    /// without waiting for the writer.
    @Test func theEngineRecordsWhoeverIsInARecordedLocation() throws {
        let recording = try Recording()
        #expect(recording.engine.recordedPublishers == [1])
        recording.feed.update(recording.handover(recorded: [.room(2)]), engine: recording.engine, now: recording.start)
        #expect(recording.engine.recordedPublishers == [])
    }

    /// A video track asks for a keyframe as it starts: the writer's request reaches the loop on
    /// the tick after it, once.
    @Test func aRecordersKeyframeRequestComesBackOnTheTick() async throws {
        let recording = try Recording(publishing: [.audio, .video])
        let video = PublishedStream(publisher: 1, kind: .video)
        let packet = RTPPacket(payloadType: 96, sequenceNumber: 1, timestamp: 1, ssrc: 0x0BAD_CAFE, payload: [0x10, 0x00, 0x9D])
        recording.feed.receive(.rtp(.init(stream: video, codec: "vp8", clockRate: 90_000, packet: packet.encoded())), now: recording.start)
        #expect(recording.feed.tick(now: recording.start) == [])
        _ = recording.feed.tick(now: recording.start + RecordedMediaQueue.patience)
        await recording.context.writer.drain()
        #expect(recording.feed.tick(now: recording.start + RecordedMediaQueue.patience) == [video])
        #expect(recording.feed.tick(now: recording.start + RecordedMediaQueue.patience) == [])
    }

    /// A stalled writer (a disk that hangs) costs a gap in the files, not the server's memory:
    /// a batch that would take the backlog past its limit is dropped and counted; once the
    /// writer is free, what follows is written again.
    @Test func aFullBacklogDropsBatchesAndWritingGoesOnAfter() async throws {
        // Each packet: a 12-byte header and 5 bytes of Opus. Room for 50.
        let stalled = try Recording(backlogLimit: 50 * 17)
        let gate = DispatchSemaphore(value: 0)
        stalled.context.writer.run { gate.wait() }
        let files = try stalled.sendThreeBatches(stalling: gate)
        #expect(stalled.context.writer.droppedItems == 40)
        // The same without a stall: nothing dropped, every frame written.
        let free = try Recording()
        let whole = try free.sendThreeBatches(stalling: nil)
        #expect(free.context.writer.droppedItems == 0)
        await stalled.context.writer.drain()
        await free.context.writer.drain()
        // Frames 0–39 and 80–89 written: the file runs to the last one, 40 frames short.
        let (gapped, full) = (try stalled.recorded(files), try free.recorded(whole))
        #expect(gapped.duration == 89 * 20 && full.duration == 89 * 20, "\(gapped) \(full)")
        #expect(full.size - gapped.size >= 40 * 10, "\(gapped) \(full)")
    }

    /// User 1 in the recorded main session, its audio's sender report already sent.
    private final class Recording {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-feed-\(UUID().uuidString)").path
        let context: RecordingContext
        let feed: RecordingFeed
        let engine = ForwardingEngine()
        let failures = NIOLockedValueBox<[SessionRecorder.Failure]>([])
        let start = Duration.seconds(1_000)
        let stream = PublishedStream(publisher: 1, kind: .audio)
        let publishing: Set<TimelineEvent.MediaKind>
        let (ssrc, origin): (UInt32, UInt32) = (0x1234_5678, 90_000)
        var folder: String { data + "/" + RecordingLayout.folderName + "/1/main" }

        init(publishing: Set<TimelineEvent.MediaKind> = [.audio], backlogLimit: Int = RecordingWriter.standardBacklogLimit) throws {
            self.publishing = publishing
            context = RecordingContext(
                layout: RecordingLayout(dataDirectory: data), quota: RecordingQuota(limit: nil), logger: Logger(label: "test"),
                writer: RecordingWriter(backlogLimit: backlogLimit))
            let failures = failures
            context.listen { _, failure in failures.withLockedValue { $0.append(failure) } }
            feed = RecordingFeed(session: StoredSessionID(rawValue: 1), context: context)
            feed.update(handover(recorded: [.main]), engine: engine, now: start)
            let report = RTCPSenderReport(ssrc: ssrc, ntpTimestamp: 3_900_000_000 << 32, rtpTimestamp: origin, packetCount: 0, octetCount: 0)
            feed.receive(.senderReport(.init(stream: stream, clockRate: 48_000, report: report, isForwardedLayer: true, arrival: nil)), now: start)
        }

        deinit {
            context.writer.drainBlocking()
            try? FileManager.default.removeItem(atPath: data)
        }

        func handover(recorded: Set<RecordingLocation>) -> RecordingHandover {
            let picture = RecordingRoster.Picture(recorded: recorded, people: [1: .init(name: "Ann", location: .main, publishing: publishing)])
            let record = RecordingSessionRecord(app: "development", session: 1, name: "class", createdAt: 0)
            return RecordingHandover(record: record, picture: picture, wallClock: 1_795_000_000_000)
        }

        /// `count` 20 ms Opus packets from number `first` on, all arriving at `start`.
        func send(packets count: Int, from first: Int = 0) {
            for index in first..<first + count {
                let packet = RTPPacket(
                    payloadType: 111, sequenceNumber: UInt16(truncatingIfNeeded: index), timestamp: origin &+ UInt32(index * 960), ssrc: ssrc,
                    payload: [0xF8, 0xFF, 0xFE, 0x01, 0x02])
                feed.receive(.rtp(.init(stream: stream, codec: "opus", clockRate: 48_000, packet: packet.encoded())), now: start)
            }
        }

        /// Packets 0–39, 40–79 and 80–89, each lot a batch of its own (the tick finds it due);
        /// `gate`, if any, holds the writer until the second lot was handed over. Then a stop;
        /// returns the files.
        func sendThreeBatches(stalling gate: DispatchSemaphore?) throws -> [String] {
            for (first, count) in [(0, 40), (40, 40), (80, 10)] {
                send(packets: count, from: first)
                _ = feed.tick(now: start + RecordedMediaQueue.patience)
                if first == 40 { gate?.signal() }
            }
            feed.stopAll(reason: "stopped", now: start + .seconds(2))
            context.writer.drainBlocking()
            return try files()
        }

        /// The one file's duration (milliseconds, as its header says) and size.
        func recorded(_ files: [String]) throws -> (duration: Int64, size: Int) {
            try #require(files.count == 1, "\(files)")
            let path = folder + "/" + files[0]
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
            let duration = try #require(try RecordedLocation.read(folder: folder, strict: false).files.first?.durationMilliseconds)
            return (duration, size)
        }

        func files() throws -> [String] {
            guard FileManager.default.fileExists(atPath: folder) else { return [] }
            return try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".webm") }.sorted()
        }
    }
}
