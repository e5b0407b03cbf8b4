import CaucusCore
import Foundation
import Testing

/// The server stops recording on its own when it cannot write a location's files (a full disk,
/// a quota): the set no longer records those locations, `stopped` says which and why, and the
/// session goes on. Only the server may; a later start or stop clears the notice.
@Suite struct RecordingFailure {
    @Test func theServerStopsARoomAndSaysWhyTheOthersGoOn() throws {
        var (harness, a, b) = RecordingRules.classroom()
        harness.perform(.startRecording(.locations([.main])), by: host)
        harness.perform(.startRecording(.all), by: host)
        let events = harness.perform(.recordingFailed([.room(a)], .diskFull), by: .server)
        let stop = RecordingStop(locations: [.room(a)], reason: .diskFull)
        // As `stopRecording`: the other rooms of "every room" are now recorded one by one.
        #expect(events == [.recordingChanged(RecordingSet(locations: [.main, .room(b)], stopped: stop))])
        #expect(harness.state.recipients(of: events[0]) == Array(harness.state.users.keys), "everyone is told")
        #expect(harness.state.recording.stopped == stop)
        #expect(harness.state.recordedLocations == [.main, .room(b)])
        #expect(!RecordingRules.recorded(harness, UserID(3)) && RecordingRules.recorded(harness, UserID(5)))
        #expect(harness.state.isLive)
        // The session goes on: a chat in the stopped room still works.
        #expect(!harness.perform(.chat("Still here", to: .room), by: UserID(3)).isEmpty)

        // Snapshots, stored state and the event log all carry it.
        for viewer in [host, UserID(3), UserID(6)] {
            let snapshot = SessionSnapshot(state: harness.state, viewer: viewer, seq: 1)
            #expect(snapshot.recording?.stopped == stop)
            #expect(SessionState(restoring: snapshot) == harness.state.visible(to: viewer))
            let coded = try JSONDecoder().decode(SessionSnapshot.self, from: try JSONEncoder().encode(snapshot))
            #expect(coded == snapshot)
        }
        let stored = try JSONDecoder().decode(SessionState.self, from: try JSONEncoder().encode(harness.state))
        #expect(stored == harness.state && stored.recording.stopped == stop)
        #expect(SessionState(replaying: harness.log) == harness.state)
        let log = try JSONDecoder().decode([Event].self, from: try JSONEncoder().encode(harness.log))
        #expect(SessionState(replaying: log) == harness.state, "the log, through JSON, replays to the same state")
    }

    @Test func stoppingEverythingStillTellsWhy() throws {
        var (harness, a, _) = RecordingRules.classroom()
        harness.perform(.startRecording(.locations([.room(a)])), by: host)
        harness.perform(.recordingFailed([.room(a), .main], .quotaExceeded), by: .server)
        #expect(harness.state.recording.isEmpty && harness.state.recordedLocations.isEmpty)
        #expect(harness.state.recording.stopped == RecordingStop(locations: [.room(a)], reason: .quotaExceeded), "only what was recorded")
        // Nothing is recorded, yet the snapshot and the stored state still carry the stop.
        let snapshot = SessionSnapshot(state: harness.state, viewer: UserID(3), seq: 1)
        #expect(snapshot.recording?.stopped?.reason == .quotaExceeded)
        #expect(SessionState(restoring: snapshot) == harness.state.visible(to: UserID(3)))
        #expect(try JSONDecoder().decode(SessionState.self, from: try JSONEncoder().encode(harness.state)) == harness.state)
    }

    @Test func locationsNotRecordedAreIgnored() {
        var (harness, a, b) = RecordingRules.classroom()
        let before = harness.state
        #expect(harness.perform(.recordingFailed([.main, .room(a)], .diskFull), by: .server).isEmpty, "nothing recorded")
        #expect(harness.state == before)
        harness.perform(.startRecording(.locations([.room(a)])), by: host)
        let recorded = harness.state
        // Another location, a room that does not exist, or the same failure reported again.
        #expect(harness.perform(.recordingFailed([.room(b), .room(RoomID(99)), .main], .writeFailed), by: .server).isEmpty)
        #expect(harness.state == recorded && harness.state.recording.stopped == nil)
        harness.perform(.recordingFailed([.room(a)], .diskFull), by: .server)
        let stopped = harness.state
        #expect(harness.perform(.recordingFailed([.room(a)], .writeFailed), by: .server).isEmpty, "reported twice")
        #expect(harness.state == stopped && harness.state.recording.stopped?.reason == .diskFull)
    }

    @Test func noClientMayReportIt() {
        var (harness, a, _) = RecordingRules.classroom(settings: SessionSettings(managersMayRecord: true))
        harness.perform(.startRecording(.locations([.room(a)])), by: host)
        for user in [host, UserID(2), UserID(3)] {
            harness.refuse(.recordingFailed([.room(a)], .diskFull), by: user, .notPermitted)
        }
        #expect(harness.state.isRecorded(.room(a)) && harness.state.recording.stopped == nil)
        #expect(Command.recordingFailed([.main], .diskFull).authority == .server)
    }

    @Test func theNextStartOrStopClearsTheNotice() {
        var (harness, a, b) = RecordingRules.classroom()
        harness.perform(.startRecording(.locations([.room(a), .room(b)])), by: host)
        harness.perform(.recordingFailed([.room(a)], .diskFull), by: .server)
        #expect(harness.state.recording.stopped != nil)
        harness.perform(.startRecording(.all), by: host)
        #expect(harness.state.recording == RecordingSet(everyRoom: true), "cleared by a start")
        harness.perform(.recordingFailed([.room(b)], .writeFailed), by: .server)
        harness.perform(.stopRecording(.locations([.room(a)])), by: host)
        #expect(harness.state.recording == RecordingSet(), "cleared by a stop")
        harness.perform(.startRecording(.locations([.main])), by: host)
        harness.perform(.recordingFailed([.main], .quotaExceeded), by: .server)
        harness.perform(.startRecording(.locations([.main])), by: host)
        #expect(harness.state.recording == RecordingSet(locations: [.main]))
        // Rooms that go leave the set; the notice stays until the next start or stop.
        harness.perform(.recordingFailed([.main], .diskFull), by: .server)
        harness.perform(.destroyAll, by: host)
        #expect(harness.state.recording.stopped == RecordingStop(locations: [.main], reason: .diskFull))
    }

    @Test func theEventsJSONAndOldJSONWithoutAStop() throws {
        let stop = RecordingStop(locations: [.room(RoomID(2)), .main], reason: .diskFull)
        let event = Event.recordingChanged(RecordingSet(locations: [.room(RoomID(3))], stopped: stop))
        let object = try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(event)) as? [String: Any])
        let stopped = try #require(object["stopped"] as? [String: Any])
        #expect(stopped["reason"] as? String == "diskFull")
        let locations = try #require(stopped["locations"] as? [Any])
        #expect(locations.count == 2 && locations[0] is NSNull && locations[1] as? Int == 2, "the main session is null, first")
        #expect(try JSONDecoder().decode(Event.self, from: try JSONEncoder().encode(event)) == event)

        // Written before the field existed: no `stopped`, and it is not written when absent.
        let old = Data(#"{"type": "recordingChanged", "locations": [null], "everyRoom": true}"#.utf8)
        #expect(try JSONDecoder().decode(Event.self, from: old) == .recordingChanged(RecordingSet(locations: [.main], everyRoom: true)))
        let plain = try JSONEncoder().encode(Event.recordingChanged(RecordingSet(locations: [.main])))
        #expect(!String(decoding: plain, as: UTF8.self).contains("stopped"))
        let set = try JSONDecoder().decode(RecordingSet.self, from: Data(#"{"locations": [3], "everyRoom": false}"#.utf8))
        #expect(set == RecordingSet(locations: [.room(RoomID(3))]) && set.stopped == nil)
        // An unknown reason is refused, not read as another.
        let unknown = Data(#"{"type": "recordingChanged", "locations": [], "everyRoom": false, "stopped": {"locations": [null], "reason": "tired"}}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Event.self, from: unknown) }
    }

    @Test func eachReasonHasASentence() {
        #expect(RecordingStopReason.diskFull.description == "The server's disk is full.")
        #expect(RecordingStopReason.quotaExceeded.description == "The recording quota of this app is used up.")
        #expect(RecordingStopReason.writeFailed.description == "The server could not write the recording.")
    }
}
