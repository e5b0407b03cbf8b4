/// Starting and stopping recording. Recording belongs to locations (the main session, rooms),
/// never to users: whoever is in a recorded location is recorded, and a move changes that with
/// no event of its own. A room that goes (withdraw, destroy all) leaves the set as it goes.
extension SessionState {
    func decideStartRecording(_ target: RecordingTarget) throws(CaucusError) -> [Event] {
        switch target {
        case .all:
            guard !recording.everyRoom else {
                throw CaucusError(.alreadyRecording, "Every subsession is already being recorded.")
            }
            // Rooms chosen one by one are now covered by "every room".
            let main = recording.locations.filter { $0 == .main }
            return [.recordingChanged(RecordingSet(locations: main, everyRoom: true))]
        case .locations(let locations):
            try validate(locations)
            for location in locations where recording.records(location, among: rooms) {
                throw CaucusError(.alreadyRecording, "\(describe(location)) is already being recorded.")
            }
            return [.recordingChanged(RecordingSet(locations: recording.locations + locations, everyRoom: recording.everyRoom))]
        }
    }

    func decideStopRecording(_ target: RecordingTarget) throws(CaucusError) -> [Event] {
        switch target {
        case .all:
            guard !recording.isEmpty else { throw CaucusError(.notRecording, "Nothing is being recorded.") }
            return [.recordingChanged(.none)]
        case .locations(let locations):
            try validate(locations)
            for location in locations where !recording.records(location, among: rooms) {
                throw CaucusError(.notRecording, "\(describe(location)) is not being recorded.")
            }
            // Stopping one room while every room is recorded records the others one by one:
            // rooms created afterwards are not recorded.
            let recorded = recording.recordedLocations(among: rooms)
            return [.recordingChanged(RecordingSet(locations: recorded.filter { !locations.contains($0) }))]
        }
    }

    /// The server could not write these locations' files (a full disk, a quota): it stops
    /// recording them and says why. Locations not recorded now are ignored (the media loop may
    /// report one more than once), and with none left nothing happens.
    func decideRecordingFailed(_ locations: [Location], reason: RecordingStopReason) -> [Event] {
        let stopped = locations.filter { recording.records($0, among: rooms) }
        guard !stopped.isEmpty else { return [] }
        // As `stopRecording`: stopping one room of "every room" records the others one by one.
        let remaining = recording.recordedLocations(among: rooms).filter { !stopped.contains($0) }
        return [.recordingChanged(RecordingSet(locations: remaining, stopped: RecordingStop(locations: stopped, reason: reason)))]
    }

    /// At least one location, each once, each a room of the committed list (or the main session).
    private func validate(_ locations: [Location]) throws(CaucusError) {
        guard !locations.isEmpty else {
            throw CaucusError(.invalidRecordingTarget, "Name at least one location (the main session or a subsession), or all.")
        }
        guard Set(locations).count == locations.count else {
            throw CaucusError(.invalidRecordingTarget, "A location is named twice.")
        }
        for case .room(let id) in locations where room(id) == nil { throw .roomNotFound(id) }
    }

    private func describe(_ location: Location) -> String {
        switch location {
        case .main: "The main session"
        case .room(let id): "'\(room(id)?.name ?? id.description)'"
        }
    }

    /// Whether `location` is recorded now.
    public func isRecorded(_ location: Location) -> Bool { recording.records(location, among: rooms) }

    /// Every location recorded now: the main session first, then rooms in the committed list's order.
    public var recordedLocations: [Location] { recording.recordedLocations(among: rooms) }
}
