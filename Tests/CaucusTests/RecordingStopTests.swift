import Caucus
import CaucusCore
import Testing
@testable import CaucusServer

/// A stop the server makes on its own (the media loop could not write: a full disk, a quota),
/// through the SDK and a real server: every app hears `recordingStopped` after the
/// `recordingChanged`, the snapshot keeps `recordingStop` until the next start or stop, and
/// the session goes on.
@Suite struct RecordingStopTests {
    @Test func everyAppIsToldWhichLocationsStoppedAndWhy() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", role: .host)
        let ann = try await server.client("Ann")
        let ben = try await server.client("Ben")
        let manager = try #require(host.session.subsessionManager)
        let rooms = try await host.session.breakoutRooms.create(count: 2)
        let (red, blue) = (rooms[0].id, rooms[1].id)
        try await manager.assign([try ann.id], to: red)
        try await manager.assign([try ben.id], to: blue)
        try await manager.startRecording([.room(red), .room(blue)])
        _ = try await ann.log.next("recording red") { if case .recordingChanged(_, true) = $0 { true } else { nil } }
        #expect(try ann.snapshot.recordingStop == nil)

        let session = try #require(await server.server.registry.session(app: server.app.key, named: "Class"))
        await Task { await session.recordingFailed([.room(red)], reason: .quotaExceeded) }.value
        let stop = RecordingStop(locations: [.room(red)], reason: .quotaExceeded)
        for client in [host, ann, ben] {
            let (locations, reason) = try await client.log.next("the stop") {
                if case .recordingStopped(let locations, let reason) = $0 { (locations, reason) } else { nil }
            }
            #expect(locations == [.room(red)] && reason == .quotaExceeded)
            #expect(try client.snapshot.recordingStop == stop)
            #expect(try client.snapshot.recordedLocations == [.room(blue)])
            // Told after the change that no longer records red, and only once.
            let recordingEvents = client.log.values { event -> String? in
                switch event {
                case .recordingChanged(let locations, _): "changed \(locations)"
                case .recordingStopped: "stopped"
                default: nil
                }
            }
            #expect(recordingEvents.suffix(2) == ["changed \([CaucusLocation.room(blue)])", "stopped"], "\(recordingEvents)")
            #expect(recordingEvents.filter { $0 == "stopped" }.count == 1)
        }
        let annView = try ann.snapshot
        #expect(!annView.isRecordingMe)

        // The session goes on; a newcomer's snapshot carries the stop.
        try await ann.session.chat.send("still here")
        _ = try await ann.log.next("Ann's chat") { if case .chatMessage(let message, _) = $0, message.text == "still here" { true } else { nil } }
        let dana = try await server.client("Dana")
        #expect(try dana.snapshot.recordingStop == stop)

        // The next start clears it, with no new stop told.
        try await manager.startRecording([.room(red)])
        _ = try await ann.log.next("red recorded again") { if case .recordingChanged(_, true) = $0 { true } else { nil } }
        #expect(try ann.snapshot.recordingStop == nil)
        // Dana hears the same event on a connection of her own, when it reaches her.
        try await eventually("Dana's stop cleared by the new start") { try dana.snapshot.recordingStop == nil }
        #expect(ann.log.values { if case .recordingStopped = $0 { true } else { nil } }.count == 1)
        await server.stop()
    }
}
