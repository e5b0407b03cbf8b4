import CaucusCore
import Foundation
import Testing

/// Who starts and stops recording, and what is recorded: locations (the main session, rooms,
/// every room), never users; a move changes who is recorded; a room that goes leaves the set.
@Suite struct RecordingRules {
    /// u1 host, u2 manager, u3…u6 participants; open rooms A (u3, u4) and B (u5); u6 in the main session.
    static func classroom(settings: SessionSettings = .standard) -> (Harness, a: RoomID, b: RoomID) {
        var harness = Harness.session(participants: 5, settings: settings)
        harness.perform(.makeManager(UserID(2)), by: host)
        harness.perform(.createRooms(RoomDefinition(), count: 2), by: host)
        let (a, b) = (harness.state.rooms[0].id, harness.state.rooms[1].id)
        harness.perform(.assign([UserID(3), UserID(4)], to: a), by: host)
        harness.perform(.assign([UserID(5)], to: b), by: host)
        return (harness, a, b)
    }

    static func recorded(_ harness: Harness, _ user: UserID) -> Bool {
        harness.state.isRecorded(harness.state.users[user]?.location ?? .main)
    }

    @Test func theHostRecordsChosenLocationsAndEveryoneIsTold() {
        var (harness, a, b) = Self.classroom()
        let events = harness.perform(.startRecording(.locations([.room(a), .main])), by: host)
        #expect(events == [.recordingChanged(RecordingSet(locations: [.main, .room(a)]))])
        #expect(harness.state.recipients(of: events[0]) == Array(harness.state.users.keys))
        #expect(harness.state.recordedLocations == [.main, .room(a)])
        #expect(harness.state.isRecorded(.main) && harness.state.isRecorded(.room(a)) && !harness.state.isRecorded(.room(b)))
        #expect(Self.recorded(harness, UserID(3)) && Self.recorded(harness, UserID(6)) && !Self.recorded(harness, UserID(5)))
        // More locations add to the set.
        harness.perform(.startRecording(.locations([.room(b)])), by: host)
        #expect(harness.state.recordedLocations == [.main, .room(a), .room(b)])
        #expect(harness.perform(.stopRecording(.locations([.main, .room(b)])), by: host) == [.recordingChanged(RecordingSet(locations: [.room(a)]))])
        #expect(harness.state.recordedLocations == [.room(a)])
    }

    @Test func participantsNeverRecordAndManagersOnlyWhenTheSettingAllows() {
        var (harness, a, _) = Self.classroom()
        #expect(!harness.state.settings.managersMayRecord, "off unless the host allows it")
        for command: Command in [.startRecording(.all), .startRecording(.locations([.room(a)])), .stopRecording(.all)] {
            harness.refuse(command, by: UserID(3), .notPermitted)
            harness.refuse(command, by: UserID(2), .notPermitted)
        }
        harness.perform(.startRecording(.locations([.room(a)])), by: host)
        harness.refuse(.stopRecording(.all), by: UserID(3), .notPermitted)
        harness.refuse(.stopRecording(.locations([.room(a)])), by: UserID(2), .notPermitted)

        var allowing = harness.state.settings
        allowing.managersMayRecord = true
        harness.perform(.updateSettings(allowing), by: host)
        harness.perform(.startRecording(.locations([.main])), by: UserID(2))
        harness.perform(.stopRecording(.locations([.room(a)])), by: UserID(2))
        harness.refuse(.stopRecording(.all), by: UserID(3), .notPermitted)
        harness.refuse(.startRecording(.all), by: UserID(4), .notPermitted)
        // The app's server (the control API) may, as the host may.
        harness.perform(.startRecording(.all), by: .server)
        harness.perform(.stopRecording(.all), by: .server)
        #expect(harness.state.recording.isEmpty)
    }

    @Test func everyRoomIncludesRoomsCreatedLaterFromTheirStart() {
        var (harness, a, b) = Self.classroom()
        #expect(harness.perform(.startRecording(.all), by: host) == [.recordingChanged(RecordingSet(everyRoom: true))])
        #expect(harness.state.recordedLocations == [.room(a), .room(b)], "every room, not the main session")
        harness.perform(.createRooms(RoomDefinition(), count: 1), by: host)
        let c = harness.state.rooms[2].id
        #expect(harness.state.isRecorded(.room(c)), "a room created later is recorded from its start")
        harness.perform(.assign([UserID(6)], to: c), by: host)
        #expect(Self.recorded(harness, UserID(6)))
        // Destroyed and created again: "every room" outlives the rooms.
        harness.perform(.destroyAll, by: host)
        harness.perform(.createRooms(RoomDefinition(), count: 1), by: host)
        #expect(harness.state.recordedLocations == [.room(harness.state.rooms[0].id)])
    }

    @Test func stoppingOneRoomOfEveryRoomRecordsTheOthersButNotRoomsToCome() {
        var (harness, a, b) = Self.classroom()
        harness.perform(.startRecording(.locations([.main])), by: host)
        harness.perform(.startRecording(.all), by: host)
        #expect(harness.perform(.stopRecording(.locations([.room(a)])), by: host) == [.recordingChanged(RecordingSet(locations: [.main, .room(b)]))])
        harness.perform(.createRooms(RoomDefinition(), count: 1), by: host)
        #expect(harness.state.recordedLocations == [.main, .room(b)])
    }

    @Test func recordingFollowsLocationsNotUsers() {
        var (harness, a, b) = Self.classroom()
        harness.perform(.startRecording(.locations([.room(a)])), by: host)
        #expect(Self.recorded(harness, UserID(3)))
        harness.perform(.assign([UserID(3)], to: b), by: host)
        #expect(!Self.recorded(harness, UserID(3)), "moved from a recorded room to an unrecorded one: no longer recorded")
        harness.perform(.assign([UserID(5)], to: a), by: host)
        #expect(Self.recorded(harness, UserID(5)), "moved into a recorded room: recorded")
        harness.perform(.returnEveryone, by: host)
        #expect(!Self.recorded(harness, UserID(5)))
        #expect(harness.state.recordedLocations == [.room(a)], "the room stays recorded, empty or not")
    }

    @Test func badRequestsAreRefusedAndChangeNothing() {
        var (harness, a, _) = Self.classroom()
        harness.refuse(.startRecording(.locations([])), by: host, .invalidRecordingTarget)
        harness.refuse(.startRecording(.locations([.room(a), .room(a)])), by: host, .invalidRecordingTarget)
        harness.refuse(.startRecording(.locations([.main, .room(RoomID(99))])), by: host, .roomNotFound)
        harness.refuse(.stopRecording(.all), by: host, .notRecording)
        harness.refuse(.stopRecording(.locations([.main])), by: host, .notRecording)
        harness.perform(.startRecording(.locations([.room(a)])), by: host)
        harness.refuse(.startRecording(.locations([.main, .room(a)])), by: host, .alreadyRecording)
        harness.refuse(.stopRecording(.locations([.room(a), .main])), by: host, .notRecording)
        harness.refuse(.stopRecording(.locations([])), by: host, .invalidRecordingTarget)
        harness.refuse(.stopRecording(.locations([.room(RoomID(99))])), by: host, .roomNotFound)
        harness.perform(.startRecording(.all), by: host)
        harness.refuse(.startRecording(.all), by: host, .alreadyRecording)
        harness.refuse(.startRecording(.locations([.room(a)])), by: host, .alreadyRecording)
    }

    @Test func roomsThatGoLeaveTheSet() {
        var harness = Harness.session(participants: 2)
        harness.startRooms(["Red", "Blue"])
        let red = harness.roomID(named: "Red")
        harness.perform(.startRecording(.locations([.main, .room(red)])), by: host)
        harness.tick(after: 0)
        harness.perform(.stop(countdownSeconds: 0), by: host)
        harness.perform(.withdraw, by: host)
        #expect(harness.state.rooms.isEmpty)
        #expect(harness.state.recording == RecordingSet(locations: [.main]))
        harness.refuse(.stopRecording(.locations([.room(red)])), by: host, .roomNotFound)
        // destroyAll does the same.
        var (rooms, a, _) = Self.classroom()
        rooms.perform(.startRecording(.locations([.room(a)])), by: host)
        rooms.perform(.destroyAll, by: host)
        #expect(rooms.state.recording.isEmpty && rooms.state.recordedLocations.isEmpty)
    }

    @Test func theSetIsInEverySnapshotAndStoredStateAndReplays() throws {
        var (harness, a, _) = Self.classroom()
        let plain = try JSONEncoder().encode(harness.state)
        harness.perform(.startRecording(.locations([.main, .room(a)])), by: host)
        harness.perform(.startRecording(.all), by: host)
        for viewer in [host, UserID(3), UserID(6)] {
            let snapshot = SessionSnapshot(state: harness.state, viewer: viewer, seq: 1)
            #expect(snapshot.recording == RecordingSet(locations: [.main], everyRoom: true))
            #expect(SessionState(restoring: snapshot) == harness.state.visible(to: viewer))
        }
        #expect(SessionSnapshot(state: Self.classroom().0.state, viewer: host, seq: 1).recording == nil)
        let stored = try JSONEncoder().encode(harness.state)
        #expect(try JSONDecoder().decode(SessionState.self, from: stored) == harness.state)
        #expect(SessionState(replaying: harness.log) == harness.state)
        // A state and settings stored before recording existed decode as recording nothing.
        var object = try #require(try JSONSerialization.jsonObject(with: plain) as? [String: Any])
        var settings = try #require(object["settings"] as? [String: Any])
        #expect(settings["managersMayRecord"] as? Bool == false)
        settings.removeValue(forKey: "managersMayRecord")
        object["settings"] = settings
        #expect(object["recording"] == nil)
        let old = try JSONDecoder().decode(SessionState.self, from: try JSONSerialization.data(withJSONObject: object))
        #expect(old.recording.isEmpty && !old.settings.managersMayRecord)
    }

    @Test func theEventsJSONNamesTheLocations() throws {
        let event = Event.recordingChanged(RecordingSet(locations: [.room(RoomID(3)), .main], everyRoom: false))
        let object = try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(event)) as? [String: Any])
        #expect(object["type"] as? String == "recordingChanged")
        #expect(object["everyRoom"] as? Bool == false)
        let locations = try #require(object["locations"] as? [Any])
        #expect(locations.count == 2 && locations[0] is NSNull && (locations[1] as? Int) == 3, "the main session is null, first")
        #expect(try JSONDecoder().decode(Event.self, from: try JSONEncoder().encode(event)) == event)
    }
}
