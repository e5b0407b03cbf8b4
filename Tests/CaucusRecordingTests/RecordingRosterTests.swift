import CaucusRecording
import Testing

/// The roster's differences between two pictures of a session: which locations start and stop,
/// whose files start and end where, and the timeline's lines.
@Suite struct RecordingRosterTests {
    typealias Person = RecordingRoster.Person
    typealias Picture = RecordingRoster.Picture

    static func person(_ name: String, _ location: RecordingLocation, _ publishing: Set<TimelineEvent.MediaKind> = [.audio]) -> Person {
        Person(name: name, location: location, publishing: publishing)
    }

    @Test func aLocationStartedWritesWhoIsThereAndRecordsThemAndNobodyElse() {
        var roster = RecordingRoster()
        let people = [1: Self.person("Ann", .room(2)), 2: Self.person("Ben", .main, [])]
        #expect(roster.update(Picture(recorded: [], people: people)).isEmpty)
        let changes = roster.update(Picture(recorded: [.room(2)], people: people))
        #expect(changes == [
            .startLocation(.room(2)),
            .timeline(.room(2), .joined(user: "u1", name: "Ann")),
            .timeline(.room(2), .unmuted(user: "u1", kind: .audio)),
            .recordPublisher(user: 1, in: .room(2)),
        ])
        #expect(roster.recordedPublishers == [1])
    }

    @Test func aMoveBetweenRecordedLocationsEndsTheFilesInOneAndStartsThemInTheOther() {
        var roster = RecordingRoster()
        _ = roster.update(Picture(recorded: [.main, .room(2)], people: [1: Self.person("Ann", .main, [.audio, .video])]))
        let changes = roster.update(Picture(recorded: [.main, .room(2)], people: [1: Self.person("Ann", .room(2), [.audio, .video])]))
        #expect(changes == [
            .stopPublisher(user: 1, in: .main),
            .timeline(.main, .movedOut(user: "u1", to: "room-2")),
            .timeline(.room(2), .movedIn(user: "u1", from: "main")),
            .timeline(.room(2), .unmuted(user: "u1", kind: .audio)),
            .timeline(.room(2), .unmuted(user: "u1", kind: .video)),
            .recordPublisher(user: 1, in: .room(2)),
        ])
    }

    @Test func aMoveIntoAnUnrecordedLocationOnlyEndsAndOneOutOfItOnlyStarts() {
        var roster = RecordingRoster()
        _ = roster.update(Picture(recorded: [.main], people: [1: Self.person("Ann", .main)]))
        #expect(roster.update(Picture(recorded: [.main], people: [1: Self.person("Ann", .room(3))])) == [
            .stopPublisher(user: 1, in: .main), .timeline(.main, .movedOut(user: "u1", to: "room-3")),
        ])
        #expect(roster.recordedPublishers.isEmpty)
        #expect(roster.update(Picture(recorded: [.main], people: [1: Self.person("Ann", .main)])) == [
            .timeline(.main, .movedIn(user: "u1", from: "room-3")), .timeline(.main, .unmuted(user: "u1", kind: .audio)),
            .recordPublisher(user: 1, in: .main),
        ])
    }

    @Test func mutesSharesAndLeavesAreLinesAndAStopEndsEverything() {
        var roster = RecordingRoster()
        _ = roster.update(Picture(recorded: [.main], people: [1: Self.person("Ann", .main, [.audio, .video]), 2: Self.person("Ben", .main)]))
        #expect(roster.update(Picture(recorded: [.main], people: [1: Self.person("Ann", .main, [.video, .screen]), 2: Self.person("Ben", .main)])) == [
            .timeline(.main, .muted(user: "u1", kind: .audio)), .timeline(.main, .shareStarted(user: "u1")),
        ])
        #expect(roster.update(Picture(recorded: [.main], people: [1: Self.person("Ann", .main, [.video, .screen])])) == [
            .stopPublisher(user: 2, in: .main), .timeline(.main, .left(user: "u2")),
        ])
        // Stopped: its publishers' files end before the location does, with no line of their own.
        #expect(roster.update(Picture(recorded: [], people: [1: Self.person("Ann", .main, [.video, .screen])])) == [
            .stopPublisher(user: 1, in: .main), .stopLocation(.main),
        ])
        #expect(roster.recordedPublishers.isEmpty)
    }

    @Test func theSamePictureAgainChangesNothing() {
        var roster = RecordingRoster()
        let picture = Picture(recorded: [.main, .room(1)], people: [1: Self.person("Ann", .main), 2: Self.person("Ben", .room(1), [])])
        _ = roster.update(picture)
        #expect(roster.update(picture).isEmpty)
        #expect(roster.recordedPublishers == [1, 2])
    }
}
