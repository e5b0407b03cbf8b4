import CaucusCore
import Foundation
import Testing

/// A host or manager mutes another user (`muteUser`): the user's publication loses the kinds,
/// everyone hears it (`mediaChanged` with `by`), the router forwards none of it, and only the
/// user turns it on again.
@Suite struct MuteUserRules {
    /// u1 host, u2 manager, u3 and u4 participants; u3 publishes audio and video.
    static func session() -> Harness {
        var harness = Harness.session(participants: 3)
        harness.perform(.makeManager(UserID(2)), by: host)
        harness.perform(.publish([.audio, .video]), by: UserID(3))
        return harness
    }

    @Test func theHostMutesAParticipantsAudioAndEveryoneHearsWhoDidIt() {
        var harness = Self.session()
        #expect(harness.state.mediaSources(for: UserID(4)).map(\.kind) == [.audio, .video])
        let events = harness.perform(.muteUser(UserID(3), .audio), by: host)
        #expect(events == [.mediaChanged(UserID(3), publishing: [.video], by: host)])
        #expect(harness.state.recipients(of: events[0]) == Array(harness.state.users.keys))
        #expect(harness.state.users[UserID(3)]?.publishing == [.video])
        // The router forwards none of it from this event on, to anyone.
        #expect(harness.state.mediaSources(for: UserID(4)) == [MediaSource(publisher: UserID(3), kind: .video)])
        #expect(MediaRoutingImpact(of: events).publishers == [UserID(3)])
    }

    @Test func aManagerMutesAParticipantsVideoWhereverItIs() {
        var harness = Self.session()
        harness.perform(.createRooms(RoomDefinition(), count: 1), by: host)
        harness.perform(.joinRoom(harness.state.rooms[0].id), by: UserID(3))
        let events = harness.perform(.muteUser(UserID(3), [.audio, .video]), by: UserID(2))
        #expect(events == [.mediaChanged(UserID(3), publishing: [], by: UserID(2))])
    }

    @Test func onlyKindsTheUserPublishesAreMuted() {
        var harness = Self.session()
        let events = harness.perform(.muteUser(UserID(3), [.video, .screenShare]), by: host)
        #expect(events == [.mediaChanged(UserID(3), publishing: [.audio], by: host)])
        harness.refuse(.muteUser(UserID(3), .video), by: host, .notPublishing)
        harness.refuse(.muteUser(UserID(4), .audio), by: host, .notPublishing)
    }

    @Test func theMutedUserUnmutesItselfAndNobodyElseCan() {
        var harness = Self.session()
        harness.perform(.muteUser(UserID(3), .audio), by: host)
        // There is no command that turns on another user's media: muteUser only turns off, and
        // publish acts on the caller's own seat.
        harness.refuse(.muteUser(UserID(3), .audio), by: host, .notPublishing)
        harness.perform(.publish([.video]), by: host)
        #expect(harness.state.users[UserID(3)]?.publishing == [.video])
        let events = harness.perform(.publish([.audio, .video]), by: UserID(3))
        #expect(events == [.mediaChanged(UserID(3), publishing: [.audio, .video])])
        #expect(harness.state.mediaSources(for: UserID(4)).filter { $0.publisher == UserID(3) }.map(\.kind) == [.audio, .video])
    }

    @Test func participantsCannotMuteOthers() {
        let harness = Self.session()
        harness.refuse(.muteUser(UserID(3), .audio), by: UserID(4), .notPermitted)
        harness.refuse(.muteUser(UserID(3), .audio), by: .server, .userRequired)
    }

    @Test func aManagerMutesNeitherTheHostNorAnotherManagerButTheHostMutesManagers() {
        var harness = Self.session()
        harness.perform(.makeManager(UserID(4)), by: host)
        harness.perform(.publish([.audio]), by: host)
        harness.perform(.publish([.audio]), by: UserID(4))
        harness.refuse(.muteUser(host, .audio), by: UserID(2), .cannotMuteUser)
        harness.refuse(.muteUser(UserID(4), .audio), by: UserID(2), .cannotMuteUser)
        let events = harness.perform(.muteUser(UserID(4), .audio), by: host)
        #expect(events == [.mediaChanged(UserID(4), publishing: [], by: host)])
    }

    @Test func mutingSomeoneAbsentOrOneselfIsRefused() {
        var harness = Self.session()
        harness.refuse(.muteUser(UserID(99), .audio), by: host, .userNotFound)
        harness.perform(.leave(endSession: false), by: UserID(3))
        harness.refuse(.muteUser(UserID(3), .audio), by: host, .userNotFound)
        harness.perform(.publish([.audio]), by: host)
        harness.refuse(.muteUser(host, .audio), by: host, .muteSelf)
    }

    @Test func aMuteSurvivesReplayAndTheStoredEventNamesWhoMuted() throws {
        var harness = Self.session()
        let events = harness.perform(.muteUser(UserID(3), .audio), by: UserID(2))
        let data = try JSONEncoder().encode(events[0])
        #expect(try JSONDecoder().decode(Event.self, from: data) == events[0])
        #expect(String(decoding: data, as: UTF8.self).contains("\"by\":"))
        // A self-change is stored as before: no `by`.
        let own = try JSONEncoder().encode(Event.mediaChanged(UserID(3), publishing: []))
        #expect(!String(decoding: own, as: UTF8.self).contains("\"by\""))
    }
}
