import Caucus
import CaucusCore
import Testing

/// Starting and stopping recording through the SDK and a real server: who may, the event every
/// user's app hears, and the snapshot saying whether this user is recorded, across moves.
@Suite struct RecordingControlTests {
    @Test func everyoneInARecordedLocationIsToldAndMovesChangeIt() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", role: .host)
        let ann = try await server.client("Ann")
        let ben = try await server.client("Ben")
        let carl = try await server.client("Carl")
        let manager = try #require(host.session.subsessionManager)
        let rooms = try await host.session.breakoutRooms.create(count: 2)
        let (red, blue) = (rooms[0].id, rooms[1].id)
        try await manager.assign([try ann.id], to: red)
        try await manager.assign([try ben.id], to: blue)

        // A manager may not record until the host allows it.
        try await host.session.userHelper.makeManager(try carl.id)
        _ = try await carl.log.next("the manager handle") { if case .managerHandle(let handle?) = $0 { handle } else { nil } }
        let carlManages = try #require(carl.session.subsessionManager)
        let refused = await #expect(throws: SessionError.self) { try await carlManages.startRecordingEverySubsession() }
        #expect(refused?.code == .notPermitted)
        let annBefore = try ann.snapshot
        #expect(annBefore.recordedLocations.isEmpty && !annBefore.isRecordingMe)

        try await manager.startRecordingEverySubsession()
        let (locations, recordingAnn) = try await ann.log.next("recording every room") {
            if case .recordingChanged(let locations, let me) = $0 { (locations, me) } else { nil }
        }
        #expect(locations == [.room(red), .room(blue)] && recordingAnn)
        let annRecorded = try ann.snapshot
        #expect(annRecorded.isRecordingMe && annRecorded.recordsEverySubsession)
        let (_, recordingHost) = try await host.log.next("recording, for the host in the main session") {
            if case .recordingChanged(let locations, let me) = $0 { (locations, me) } else { nil }
        }
        let hostView = try host.snapshot
        #expect(!recordingHost && !hostView.isRecordingMe)
        let again = await #expect(throws: SessionError.self) { try await manager.startRecordingEverySubsession() }
        #expect(again?.code == .alreadyRecording)

        // Stopping blue goes on recording red; Ben (in blue) is told he is no longer recorded.
        try await manager.stopRecording([.room(blue)])
        let benNow = try await ben.log.next("blue's recording stopped") {
            if case .recordingChanged(let locations, let me) = $0, locations == [.room(red)] { me } else { nil }
        }
        let benView = try ben.snapshot
        #expect(!benNow && !benView.isRecordingMe)

        // Ann moved from recorded red to unrecorded blue: told with no recording event of its own.
        try await manager.assign([try ann.id], to: blue)
        let annMoved = try await ann.log.next("the move out of the recorded room") {
            if case .recordingChanged(let locations, false) = $0, locations == [.room(red)] { true } else { nil }
        }
        let annView = try ann.snapshot
        #expect(annMoved && !annView.isRecordingMe)

        // With the host's leave, a manager records; a newcomer's snapshot shows what is recorded.
        try await host.session.updateSettings(SettingsChange(managersMayRecord: true))
        _ = try await carl.log.next("the setting") { if case .settingsChanged(let settings) = $0, settings.managersMayRecord { true } else { nil } }
        try await carlManages.startRecording([.main])
        let dana = try await server.client("Dana")
        #expect(try dana.snapshot.recordedLocations == [.main, .room(red)])
        #expect(try dana.snapshot.isRecordingMe)
        try await carlManages.stopAllRecording()
        _ = try await dana.log.next("everything stopped") {
            if case .recordingChanged(let locations, false) = $0, locations.isEmpty { true } else { nil }
        }
        #expect(try dana.snapshot.recordedLocations.isEmpty)
        let nothing = await #expect(throws: SessionError.self) { try await manager.stopAllRecording() }
        #expect(nothing?.code == .notRecording)
        await server.stop()
    }
}
