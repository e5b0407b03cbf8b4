import Caucus
import CaucusRecording
import Foundation
import Testing

/// A disk that hangs delays the recordings, never the media: the files are written off the
/// media loops (`RecordingWriter`). The recordings folder is on a file system frozen
/// (``FrozenDisk``) for three seconds while Ann publishes into the recorded main session: Ben
/// hears her all along, and once the disk thaws her file catches up, the stall's media in it.
@Suite(.serialized) struct SDKRecordingStallTests {
    @Test(.enabled(if: FrozenDisk.isAvailable, "freezing a file system needs root and a loop device"))
    func aHungDiskDelaysTheFilesNotTheMedia() async throws {
        let server = try await TestServer.start()
        let disk = try FrozenDisk()
        defer { disk.remove() }
        try FileManager.default.createSymbolicLink(atPath: server.running.dataDirectory + "/recordings", withDestinationPath: disk.mount)
        let host = try await server.client("Teacher", role: .host)
        let ann = try await server.client("Ann")
        let ben = try await server.client("Ben")
        let annID = try ann.id
        try await ann.session.audioHelper.start()
        try await ben.session.audioHelper.start(muted: true)
        _ = try await ben.log.next("Ann's publication") {
            if case .mediaChanged(let user) = $0, user.id == annID, user.publishing == [.audio] { true } else { nil }
        }
        let received = ReceivedMedia(ben.session, from: annID)
        let publisher = TestPublisher.start(ann.session)
        defer { publisher.cancel() }
        try await received.waitFor(audio: 50, video: 0, "Ann's audio at Ben")
        let manager = try #require(host.session.subsessionManager)
        try await manager.startRecording([.main])

        let dataDirectory = server.running.dataDirectory
        @Sendable func mainFolder() -> String? { RecordedSessionFolder.location("main", in: dataDirectory) }
        let fileName = "u\(annID.rawValue)-audio-0.webm"
        @Sendable func size() -> Int {
            guard let folder = mainFolder() else { return 0 }
            return (try? FileManager.default.attributesOfItem(atPath: folder + "/" + fileName)[.size] as? Int) ?? 0
        }
        // A cluster is on disk: the file has been written for a second or so.
        try await eventually("Ann's audio file written") { size() > 1_000 }
        let written = ContinuousClock.now

        try disk.freeze()
        let mark = received.count
        try await Task.sleep(for: .seconds(3))
        let heard = received.audio(after: mark).count
        let sizeWhileFrozen = size()
        disk.thaw()
        // 50 frames a second: about 150 in the three seconds the disk hung.
        #expect(heard >= 100, "Ben heard \(heard) of Ann's audio frames while the disk hung")

        try await eventually("the file catches up") { size() > sizeWhileFrozen }
        try await Task.sleep(for: .seconds(1))
        try await manager.stopAllRecording()
        let recordedFor = ContinuousClock.now - written
        let folder = try #require(mainFolder())
        try await eventually("the timeline ended") {
            (try? String(contentsOfFile: folder + "/timeline.jsonl", encoding: .utf8))?.contains("recordingStopped") == true
        }
        // The file runs at least from the moment it was first seen written to the stop, and
        // nothing of the stall was lost: a 20 ms frame for every 20 ms of it (a gap keeps the
        // frames' times, so only their count tells).
        let file = try #require(try RecordedLocation.read(folder: folder, strict: false).files.first { $0.name == fileName })
        let duration = try #require(file.durationMilliseconds)
        #expect(Double(duration) >= recordedFor.seconds * 1_000 - 500, "\(fileName) lasts \(duration) ms, recorded for \(recordedFor)")
        if FFprobe.isInstalled {
            let frames = try FFprobe.packetCount(of: folder + "/" + fileName)
            #expect(frames * 20 >= Int(duration) - 1_000, "\(fileName): \(frames) frames in \(duration) ms")
        }
        try await ann.session.leave()
        try await ben.session.leave()
        try await host.session.leave()
        await server.stop()
    }
}
