import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// The engine's speakers, on their own: levels in, per location, the locations with a new
/// order out; only publishers someone there may hear are ranked; a location nobody is in
/// forgets its ranking.
@Suite struct LocationSpeakersTests {
    static let configuration = SpeakerRanking.Configuration.standard

    /// Publisher `user` speaking at `level` (RFC 6464: 0 loudest, 127 silence) in `location`
    /// every 20 ms from `start` for `span`.
    static func speak(_ user: Int, level: UInt8 = 10, in location: Int, from start: Duration, for span: Duration, into speakers: inout LocationSpeakers) {
        var time = start
        while time < start + span {
            speakers.hear(user, level: level, in: location, at: time)
            time += .milliseconds(20)
        }
    }

    @Test func aVoiceSomeoneMayHearIsRankedInItsOwnLocationOnly() {
        var speakers = LocationSpeakers(configuration: Self.configuration)
        #expect(speakers.isEmpty)
        speakers.membersChanged(in: 0)
        speakers.membersChanged(in: 1)
        Self.speak(7, in: 0, from: .zero, for: .seconds(2), into: &speakers)
        let changed = speakers.evaluate(at: .seconds(2)) { location in location == 0 ? [7] : [] }
        #expect(changed == [0])
        #expect(Array(speakers.speakers(in: 0)) == [7])
        #expect(speakers.speakers(in: 1).isEmpty)
        #expect(speakers.order(in: 0).audio.first == 7)
        #expect(speakers.order(in: 1) == .empty)
    }

    @Test func aVoiceNobodyThereMayHearIsNeverListed() {
        var speakers = LocationSpeakers(configuration: Self.configuration)
        speakers.membersChanged(in: 0)
        Self.speak(7, in: 0, from: .zero, for: .seconds(2), into: &speakers)
        // A muted main session: 7's audio is forwarded to nobody there.
        _ = speakers.evaluate(at: .seconds(2)) { _ in [] }
        #expect(speakers.speakers(in: 0).isEmpty)

        // What they may hear is read again only for a location whose members changed.
        Self.speak(7, in: 0, from: .seconds(2), for: .seconds(2), into: &speakers)
        _ = speakers.evaluate(at: .seconds(4)) { _ in [7] }
        #expect(speakers.speakers(in: 0).isEmpty, "not refreshed: nothing changed in location 0")
        speakers.membersChanged(in: 0)
        Self.speak(7, in: 0, from: .seconds(4), for: .seconds(2), into: &speakers)
        _ = speakers.evaluate(at: .seconds(6)) { _ in [7] }
        #expect(Array(speakers.speakers(in: 0)) == [7])
    }

    @Test func aSpeakerWhoLeavesIsForgottenAndAnEmptiedLocationLosesItsRanking() {
        var speakers = LocationSpeakers(configuration: Self.configuration)
        speakers.membersChanged(in: 0)
        Self.speak(7, in: 0, from: .zero, for: .seconds(2), into: &speakers)
        Self.speak(8, level: 30, in: 0, from: .zero, for: .seconds(2), into: &speakers)
        _ = speakers.evaluate(at: .seconds(2)) { _ in [7, 8] }
        #expect(Set(speakers.speakers(in: 0)) == [7, 8])

        speakers.left(7, from: 0, emptied: false)
        _ = speakers.evaluate(at: .seconds(3)) { _ in [8] }
        #expect(!speakers.speakers(in: 0).contains(7))

        speakers.left(8, from: 0, emptied: true)
        #expect(speakers.speakers(in: 0).isEmpty)
        #expect(speakers.isEmpty, "nobody in location 0: its ranking went")
    }
}
