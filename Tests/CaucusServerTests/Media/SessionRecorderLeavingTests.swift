import CaucusMedia
import CaucusRecording
@testable import CaucusSFU
@testable import CaucusServer
import Foundation
import Logging
import Testing

/// A location's tracks are kept in one array, a track's place found by its stream; a publisher
/// that leaves takes its tracks out, the last track taking the freed place. The others' packets
/// must still reach their own recorders: each keeps one file, whole.
@Suite struct SessionRecorderLeavingTests {
    @Test func aPublisherLeavingARecordedLocationLeavesTheOthersFilesWhole() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-recorder-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let recorder = SessionRecorder(
            layout: RecordingLayout(dataDirectory: data), quota: RecordingQuota(limit: nil), logger: Logger(label: "test"))
        let record = RecordingSessionRecord(app: "development", session: 1, name: "class", createdAt: 0)
        func picture(firstIn location: RecordingLocation) -> RecordingRoster.Picture {
            RecordingRoster.Picture(
                recorded: [.main],
                people: [
                    1: .init(name: "Ann", location: location, publishing: [.audio]),
                    2: .init(name: "Bo", location: .main, publishing: [.audio]),
                    3: .init(name: "Cy", location: .main, publishing: [.audio]),
                ])
        }
        let start = Duration.seconds(1_000)
        recorder.update(RecordingHandover(record: record, picture: picture(firstIn: .main), wallClock: 1_795_000_000_000), now: start)
        let origin: UInt32 = 90_000
        func ssrc(_ user: Int) -> UInt32 { 0x1000 + UInt32(user) }
        for user in 1...3 {
            let report = RTCPSenderReport(ssrc: ssrc(user), ntpTimestamp: 3_900_000_000 << 32, rtpTimestamp: origin, packetCount: 0, octetCount: 0)
            recorder.write(
                .senderReport(.init(stream: PublishedStream(publisher: user, kind: .audio), clockRate: 48_000, report: report, isForwardedLayer: true, arrival: nil)),
                arrival: start)
        }
        func send(_ indices: Range<Int>) {
            for index in indices {
                for user in 1...3 {
                    recorder.writeOpus(index..<(index + 1), of: PublishedStream(publisher: user, kind: .audio), ssrc: ssrc(user), origin: origin, from: start)
                }
            }
        }
        send(0..<25)
        // Ann, whose track came first, moves to a room that is not recorded.
        recorder.update(
            RecordingHandover(record: record, picture: picture(firstIn: .room(1)), wallClock: 1_795_000_000_500), now: start + .milliseconds(500))
        send(25..<50)
        recorder.stopAll(reason: "stopped", now: start + .seconds(1))
        #expect(recorder.takeFailures().isEmpty)

        let folder = data + "/" + RecordingLayout.folderName + "/1/main"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".webm") }.sorted()
        #expect(files == ["u1-audio-0.webm", "u2-audio-0.webm", "u3-audio-0.webm"], "one file each, none split")
        // Ann's half second; the others' whole second (49 frames after the first, 20 ms apart).
        #expect(WebMDurationReader.durationMilliseconds(ofFileAt: folder + "/u1-audio-0.webm") == 480)
        for user in [2, 3] {
            #expect(WebMDurationReader.durationMilliseconds(ofFileAt: folder + "/u\(user)-audio-0.webm") == 980, "user \(user)")
        }
    }
}
