import CaucusMedia
import CaucusRecording
@testable import CaucusSFU
@testable import CaucusServer
import Foundation
import Logging
import Testing

/// A location recorded again, and a publisher who comes back to one: each new file takes the
/// next index of its track (never overwriting one, though a track's start no longer lists the
/// folder), and the location's timeline goes on with its first line's clock.
@Suite struct SessionRecorderAgainTests {
    @Test func aReturningPublisherAndARecordingStartedAgainWriteTheNextFilesOnOneTimeline() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-recorder-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let recorder = SessionRecorder(
            layout: RecordingLayout(dataDirectory: data), quota: RecordingQuota(limit: nil), logger: Logger(label: "test"))
        let record = RecordingSessionRecord(app: "development", session: 1, name: "class", createdAt: 0)
        let (start, wallClock): (Duration, Int64) = (.seconds(1_000), 1_795_000_000_000)
        func update(at milliseconds: Int64, recorded: Set<RecordingLocation>, annIn location: RecordingLocation) {
            let picture = RecordingRoster.Picture(
                recorded: recorded, people: [1: .init(name: "Ann", location: location, publishing: [.audio])])
            recorder.update(
                RecordingHandover(record: record, picture: picture, wallClock: wallClock + milliseconds),
                now: start + .milliseconds(milliseconds))
        }
        let stream = PublishedStream(publisher: 1, kind: .audio)
        let (ssrc, origin): (UInt32, UInt32) = (0x1234_5678, 90_000)
        func report(at packet: Int) {
            let report = RTCPSenderReport(
                ssrc: ssrc, ntpTimestamp: (3_900_000_000 << 32) + UInt64(packet) * (UInt64(1) << 32) / 50,
                rtpTimestamp: origin &+ UInt32(packet * 960), packetCount: 0, octetCount: 0)
            recorder.write(
                .senderReport(.init(stream: stream, clockRate: 48_000, report: report, isForwardedLayer: true, arrival: nil)),
                arrival: start + .milliseconds(20 * packet))
        }

        // Ann in main, recorded (main-0); to room 1 and back at once (main-1), each half a second.
        update(at: 0, recorded: [.main, .room(1)], annIn: .main)
        report(at: 0)
        recorder.writeOpus(0..<25, of: stream, ssrc: ssrc, origin: origin, from: start)
        update(at: 500, recorded: [.main, .room(1)], annIn: .room(1))
        recorder.writeOpus(25..<50, of: stream, ssrc: ssrc, origin: origin, from: start)
        update(at: 1_000, recorded: [.main, .room(1)], annIn: .main)
        recorder.writeOpus(50..<75, of: stream, ssrc: ssrc, origin: origin, from: start)
        // Recording stops, and starts again a second later (main-2, on main's first clock).
        update(at: 1_500, recorded: [], annIn: .main)
        update(at: 2_500, recorded: [.main], annIn: .main)
        report(at: 125)
        recorder.writeOpus(125..<150, of: stream, ssrc: ssrc, origin: origin, from: start)
        update(at: 3_000, recorded: [], annIn: .main)
        #expect(recorder.takeFailures().isEmpty)

        let main = data + "/" + RecordingLayout.folderName + "/1/main"
        let files = try FileManager.default.contentsOfDirectory(atPath: main).filter { $0.hasSuffix(".webm") }.sorted()
        #expect(files == ["u1-audio-0.webm", "u1-audio-1.webm", "u1-audio-2.webm"])
        let lines = try TimelineReader.lines(Data(contentsOf: URL(fileURLWithPath: main + "/timeline.jsonl")), strict: true)
        #expect(lines.map(\.event).filter { $0 == "recordingStarted" } == ["recordingStarted"], "one timeline, gone on with: \(lines)")
        #expect(lines.map(\.event).filter { $0 == "recordingStopped" }.count == 2)
        let started = lines.filter { $0.event == "fileStarted" }
        #expect(started.map(\.file) == files)
        // Each file starts when Ann's audio came there, on the clock of main's first line.
        for (line, expected) in zip(started, [0, 1_000, 2_500] as [Int64]) {
            #expect(abs(line.t - expected) <= 40, "\(line.file ?? "") starts at \(line.t) ms, not \(expected)")
        }
    }

    /// A location whose timeline lost its first line as it was written (the disk full, or the
    /// server killed right after making the file) starts again when next recorded: the file,
    /// which holds no whole line, gives way to a new timeline.
    @Test(arguments: ["", #"{"t":0,"event":"recordingSta"#])
    func aTimelineCutOffInItsFirstLineGivesWayToANewOne(left: String) throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-recorder-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let layout = RecordingLayout(dataDirectory: data)
        let record = RecordingSessionRecord(app: "development", session: 1, name: "class", createdAt: 0)
        let timeline = try layout.prepare(record, location: .main) + "/" + RecordingLayout.timelineFileName
        #expect(FileManager.default.createFile(atPath: timeline, contents: Data(left.utf8)))
        let recorder = SessionRecorder(layout: layout, quota: RecordingQuota(limit: nil), logger: Logger(label: "test"))
        let picture = RecordingRoster.Picture(recorded: [.main], people: [1: .init(name: "Ann", location: .main, publishing: [.audio])])
        recorder.update(RecordingHandover(record: record, picture: picture, wallClock: 1_795_000_000_000), now: .seconds(1_000))
        #expect(recorder.takeFailures().isEmpty)
        recorder.stopAll(reason: "stopped", now: .seconds(1_001))
        let lines = try TimelineReader.lines(Data(contentsOf: URL(fileURLWithPath: timeline)), strict: true)
        #expect(lines.first?.event == "recordingStarted" && lines.first?.wallClock == 1_795_000_000_000, "\(lines)")
        #expect(lines.last?.event == "recordingStopped")
    }
}
