import Caucus
import CaucusRecording
import Foundation
import Testing

/// Recording from the forwarding path, end to end: two SDK clients publish real Opus and VP8
/// to a real server; the host records the main session and every room, moves Ann into a room,
/// Ann mutes, the host stops. Each recorded location's folder then holds a timeline saying so
/// and one WebM file per publisher and kind, Ann's split at the move, each as long as the
/// time it was recorded (`ffprobe` agreeing where it is installed); the loudest speaker is
/// written as it changes.
@Suite(.serialized) struct SDKRecordingTests {
    @Test func eachRecordedLocationGetsItsPublishersFilesAndATimelineAndAMoveSplitsThem() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", role: .host)
        let ann = try await server.client("Ann")
        let ben = try await server.client("Ben")
        let (annID, benID) = (try ann.id, try ben.id)
        for client in [ann, ben] {
            try await client.session.audioHelper.start()
            try await client.session.videoHelper.start()
        }
        let publishers = [TestPublisher.start(ann.session), TestPublisher.start(ben.session)]
        defer { for publisher in publishers { publisher.cancel() } }
        let rooms = try await host.session.breakoutRooms.create(count: 2)
        let manager = try #require(host.session.subsessionManager)

        try await manager.startRecording([.main])
        try await manager.startRecordingEverySubsession()
        try await Task.sleep(for: .seconds(4))
        try await manager.assign([annID], to: rooms[0].id)
        try await eventually("Ann in the room") { try ann.snapshot.myself.location == .room(rooms[0].id) }
        try await Task.sleep(for: .seconds(4))
        try await ann.session.audioHelper.mute()
        try await Task.sleep(for: .seconds(1))
        try await manager.stopAllRecording()

        let root = server.running.dataDirectory + "/" + RecordingLayout.folderName
        let sessions = try FileManager.default.contentsOfDirectory(atPath: root)
        try #require(sessions.count == 1, "one session recorded: \(sessions)")
        let folder = root + "/" + sessions[0]
        let (main, room) = (folder + "/main", folder + "/room-\(rooms[0].id.rawValue)")
        try await eventually("both timelines ended") {
            [main, room].allSatisfy { (try? String(contentsOfFile: $0 + "/timeline.jsonl", encoding: .utf8))?.contains("recordingStopped") == true }
        }
        let (a, b) = ("u\(annID.rawValue)", "u\(benID.rawValue)")

        // The main session: both from the start, Ann until her move.
        let inMain = try RecordedLocation.read(folder: main, strict: true)
        let mainLines = try lines(main)
        #expect(mainLines.contains { $0.event == "joined" && $0.user == a } && mainLines.contains { $0.event == "joined" && $0.user == b })
        let movedOut = try #require(mainLines.first { $0.event == "movedOut" && $0.user == a })
        // Both speak (their tone carries its level): the loudest is written as it changes.
        #expect(mainLines.contains { $0.event == "spoke" && [a, b].contains($0.user) }, "no spoke line in the main session")
        #expect(Set(inMain.files.map(\.name)) == ["\(a)-audio-0.webm", "\(a)-video-0.webm", "\(b)-audio-0.webm", "\(b)-video-0.webm"])
        // The room: Ann from her move on, her mute in its timeline, no file of Ben.
        let inRoom = try RecordedLocation.read(folder: room, strict: true)
        let roomLines = try lines(room)
        let movedIn = try #require(roomLines.first { $0.event == "movedIn" && $0.user == a })
        #expect(roomLines.contains { $0.event == "muted" && $0.user == a && $0.kind == "audio" })
        #expect(Set(inRoom.files.map(\.name)) == ["\(a)-audio-0.webm", "\(a)-video-0.webm"])

        for file in inMain.files + inRoom.files {
            #expect(file.ended && file.user != nil && file.codec == (file.kind == .audio ? "opus" : "vp8"), "\(file)")
            let duration = try #require(file.durationMilliseconds)
            let start = try #require(file.start)
            if file.user == a {
                // Split at the move: the main session's files end there, the room's start there
                // (video at the keyframe asked for at once).
                if inMain.files.contains(file) {
                    #expect(abs(start + duration - movedOut.t) < 1_000, "\(file.name) ends at \(start + duration), moved at \(movedOut.t)")
                } else {
                    #expect(start >= movedIn.t - 100 && start - movedIn.t < 1_000, "\(file.name) starts at \(start), moved in at \(movedIn.t)")
                }
            }
            #expect(duration > 2_000, "\(file.name) lasts \(duration) ms")
        }
        if FFprobe.isInstalled {
            for (location, file) in inMain.files.map({ (main, $0) }) + inRoom.files.map({ (room, $0) }) {
                let seconds = try FFprobe.duration(of: location + "/" + file.name)
                #expect(abs(seconds * 1_000 - Double(file.durationMilliseconds ?? 0)) < 1_500, "\(file.name): ffprobe \(seconds) s")
            }
        }
        try await ann.session.leave()
        try await ben.session.leave()
        try await host.session.leave()
        await server.stop()
    }

    private func lines(_ folder: String) throws -> [TimelineReader.Line] {
        try TimelineReader.lines(try Data(contentsOf: URL(fileURLWithPath: folder + "/timeline.jsonl")), strict: true)
    }
}
