import CaucusCore
import CaucusRecording

/// Recording is an output of the session like routing: after each batch of events, while
/// anything is recorded (and once more after it stops), the media loop gets the session's
/// picture — the recorded locations and where everyone is and what they publish — and its
/// `SessionRecorder` works out the files and the timeline lines from the difference.
extension SessionActor {
    func handOverRecording() {
        let state = pipeline.state
        // An ended session's media loop has ended its recording (`dropSession`): nothing more.
        if case .ended = state.lifecycle { return }
        let recorded = state.recordedLocations
        guard !recorded.isEmpty || mediaRouting.recordingHandedOver else { return }
        mediaRouting.recordingHandedOver = !recorded.isEmpty
        var people: [Int: RecordingRoster.Person] = [:]
        for (id, user) in state.users {
            people[id.rawValue] = RecordingRoster.Person(
                name: user.name, location: Self.recordingLocation(user.location), publishing: Self.timelineKinds(user.publishing))
        }
        let record = RecordingSessionRecord(app: app, session: id.rawValue, name: state.name, createdAt: state.createdAt.milliseconds)
        let picture = RecordingRoster.Picture(recorded: Set(recorded.map(Self.recordingLocation)), people: people)
        environment.media.record(id, RecordingHandover(record: record, picture: picture, wallClock: environment.clock().milliseconds))
    }

    static func recordingLocation(_ location: Location) -> RecordingLocation {
        switch location {
        case .main: .main
        case .room(let room): .room(room.rawValue)
        }
    }

    static func timelineKinds(_ kinds: MediaKinds) -> Set<TimelineEvent.MediaKind> {
        var result: Set<TimelineEvent.MediaKind> = []
        if kinds.contains(.audio) { result.insert(.audio) }
        if kinds.contains(.video) { result.insert(.video) }
        if kinds.contains(.screenShare) { result.insert(.screen) }
        return result
    }
}
