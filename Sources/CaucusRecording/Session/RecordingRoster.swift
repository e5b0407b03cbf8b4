/// Who is recorded where, from the session's picture of its people and its recorded locations:
/// each new picture is compared with the last, and the differences become what a recording
/// shell does — locations to start and stop, publishers to record or stop recording in a
/// location, and the timeline's lines (joined, left, moved in and out, muted, shared). Pure:
/// pictures in, changes out; the caller says when.
///
/// A user present in a location when its recording starts is written `joined` at the start, so
/// a timeline always says who was there. A user who goes from one location to another is
/// `movedOut` of the first and `movedIn` to the second; one who leaves the session is `left`.
public struct RecordingRoster: Sendable {
    /// One user as the session sees it now.
    public struct Person: Hashable, Sendable {
        public var name: String
        public var location: RecordingLocation
        public var publishing: Set<TimelineEvent.MediaKind>

        public init(name: String, location: RecordingLocation, publishing: Set<TimelineEvent.MediaKind>) {
            self.name = name
            self.location = location
            self.publishing = publishing
        }
    }

    /// The session now: the recorded locations and every user (by the session's user number).
    public struct Picture: Hashable, Sendable {
        public var recorded: Set<RecordingLocation>
        public var people: [Int: Person]

        public init(recorded: Set<RecordingLocation>, people: [Int: Person]) {
            self.recorded = recorded
            self.people = people
        }

        /// The users in a recorded location.
        public var recordedUsers: Set<Int> {
            Set(people.lazy.filter { recorded.contains($0.value.location) }.map(\.key))
        }
    }

    /// What the shell does, in order.
    public enum Change: Hashable, Sendable {
        /// Open the location's timeline (its first line) and clock.
        case startLocation(RecordingLocation)
        /// Record `user`'s streams in `location` from now on.
        case recordPublisher(user: Int, in: RecordingLocation)
        /// Finish `user`'s files in `location`.
        case stopPublisher(user: Int, in: RecordingLocation)
        /// A line for the location's timeline.
        case timeline(RecordingLocation, TimelineEvent.What)
        /// Finish every file of the location, write `recordingStopped` and close its timeline.
        case stopLocation(RecordingLocation)
    }

    public private(set) var picture = Picture(recorded: [], people: [:])

    public init() {}

    /// A user as timelines and file names write it: `u7`.
    public static func userName(_ user: Int) -> String { "u\(user)" }

    /// The users recorded now (those in a recorded location).
    public var recordedPublishers: Set<Int> { picture.recordedUsers }

    /// The changes from the last picture to `next`.
    public mutating func update(_ next: Picture) -> [Change] {
        let previous = picture
        picture = next
        var changes: [Change] = []
        let started = next.recorded.subtracting(previous.recorded).sorted()
        let stopped = previous.recorded.subtracting(next.recorded).sorted()
        // Users first in the order of their numbers, so a batch always gives the same lines.
        let users = Set(previous.people.keys).union(next.people.keys).sorted()
        // Who leaves a location still recorded, before it stops or they arrive elsewhere.
        for user in users {
            guard let before = previous.people[user], previous.recorded.contains(before.location) else { continue }
            let after = next.people[user]
            let stillRecorded = next.recorded.contains(before.location)
            if let after, after.location == before.location, stillRecorded { continue }
            changes.append(.stopPublisher(user: user, in: before.location))
            guard stillRecorded else { continue }
            if let after {
                changes.append(.timeline(before.location, .movedOut(user: Self.userName(user), to: after.location.name)))
            } else {
                changes.append(.timeline(before.location, .left(user: Self.userName(user))))
            }
        }
        for location in stopped { changes.append(.stopLocation(location)) }
        for location in started { changes.append(.startLocation(location)) }
        for user in users {
            guard let after = next.people[user], next.recorded.contains(after.location) else { continue }
            let before = previous.people[user]
            let wasHere = before.map { $0.location == after.location && previous.recorded.contains(after.location) } ?? false
            if wasHere {
                changes += mediaLines(user, from: before!.publishing, to: after.publishing, in: after.location)
                continue
            }
            if let before, before.location != after.location {
                changes.append(.timeline(after.location, .movedIn(user: Self.userName(user), from: before.location.name)))
            } else {
                changes.append(.timeline(after.location, .joined(user: Self.userName(user), name: after.name)))
            }
            changes += mediaLines(user, from: [], to: after.publishing, in: after.location)
            changes.append(.recordPublisher(user: user, in: after.location))
        }
        return changes
    }

    /// Muted and unmuted (audio, video), share started and stopped (screen).
    private func mediaLines(
        _ user: Int, from old: Set<TimelineEvent.MediaKind>, to new: Set<TimelineEvent.MediaKind>, in location: RecordingLocation
    ) -> [Change] {
        var lines: [Change] = []
        let name = Self.userName(user)
        for kind in [TimelineEvent.MediaKind.audio, .video, .screen] where old.contains(kind) != new.contains(kind) {
            let on = new.contains(kind)
            switch kind {
            case .screen: lines.append(.timeline(location, on ? .shareStarted(user: name) : .shareStopped(user: name)))
            case .audio, .video: lines.append(.timeline(location, on ? .unmuted(user: name, kind: kind) : .muted(user: name, kind: kind)))
            }
        }
        return lines
    }
}
