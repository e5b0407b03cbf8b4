import CaucusCore
import Foundation
import Testing

/// Broadcast voice: a host or manager speaks to every room at once, one voice at a time.
@Suite struct VoiceBroadcastRules {
    /// u1 host, u2 manager, u3…u6 participants; rooms A (u3, u4) and B (u5, audio off), started;
    /// u6 stays in the main session. Everyone publishes audio.
    static func classroom() -> (Harness, a: RoomID, b: RoomID) {
        var harness = Harness.session(participants: 5)
        harness.perform(.makeManager(UserID(2)), by: host)
        harness.perform(.createRooms(RoomDefinition(), count: 1), by: host)
        harness.perform(.createRooms(RoomDefinition(audio: false), count: 1), by: host)
        let (a, b) = (harness.state.rooms[0].id, harness.state.rooms[1].id)
        harness.perform(.assign([UserID(3), UserID(4)], to: a), by: host)
        harness.perform(.assign([UserID(5)], to: b), by: host)
        for id in 1...6 { harness.perform(.publish([.audio]), by: UserID(id)) }
        return (harness, a, b)
    }

    static let voice = MediaSource(publisher: UserID(2), kind: .audio)

    @Test func everyConnectedUserEverywhereHearsTheBroadcasterFirst() {
        var (harness, _, _) = Self.classroom()
        harness.perform(.muteParent(audio: true, video: true), by: host)
        harness.perform(.pauseParent, by: host)
        let events = harness.perform(.startVoiceBroadcast, by: UserID(2))
        #expect(events == [.voiceBroadcast(UserID(2), active: true)])
        #expect(harness.state.recipients(of: events[0]) == Array(harness.state.users.keys))
        #expect(harness.state.voiceBroadcaster == UserID(2))
        for id in [1, 3, 4, 5, 6].map({ UserID($0) }) {
            // First in every list: in a room, in a room without audio, in a muted, paused main session.
            #expect(harness.state.mediaSources(for: id).first == Self.voice, "\(id)")
            #expect(harness.state.mediaSources(for: id).filter { $0 == Self.voice }.count == 1, "\(id)")
        }
        // The broadcaster never hears itself; those in its own room hear it once.
        #expect(!harness.state.mediaSources(for: UserID(2)).contains(Self.voice))
        #expect(harness.state.mediaSources(for: UserID(3)) == [Self.voice, MediaSource(publisher: UserID(4), kind: .audio)])
        // Nothing else crosses rooms: room B forbids audio, so u5 hears the broadcast alone.
        #expect(harness.state.mediaSources(for: UserID(5)) == [Self.voice])
    }

    @Test func onlyAConnectedBroadcasterPublishingAudioIsHeard() {
        var (harness, _, _) = Self.classroom()
        harness.perform(.publish([.video]), by: UserID(2))
        harness.perform(.startVoiceBroadcast, by: UserID(2))
        #expect(!harness.state.mediaSources(for: UserID(3)).contains(Self.voice))
        harness.perform(.publish([.audio, .video]), by: UserID(2))
        #expect(harness.state.mediaSources(for: UserID(3)).first == Self.voice)
        // Reconnecting: the broadcast stands, nothing is forwarded until it resumes.
        harness.perform(.connectionLost(UserID(2)), by: .server)
        #expect(harness.state.voiceBroadcaster == UserID(2))
        #expect(!harness.state.mediaSources(for: UserID(3)).contains(Self.voice))
        harness.perform(.resume(UserID(2)), by: .server)
        #expect(harness.state.mediaSources(for: UserID(3)).first == Self.voice)
    }

    @Test func oneBroadcasterAtATime() {
        var (harness, _, _) = Self.classroom()
        harness.perform(.startVoiceBroadcast, by: UserID(2))
        harness.refuse(.startVoiceBroadcast, by: host, .voiceBroadcastBusy)
        harness.refuse(.startVoiceBroadcast, by: UserID(2), .voiceBroadcastBusy)
        harness.refuse(.startVoiceBroadcast, by: UserID(3), .notPermitted)
        harness.refuse(.startVoiceBroadcast, by: .server, .userRequired)
    }

    @Test func onlyTheBroadcasterOrTheHostStopsIt() {
        var (harness, _, _) = Self.classroom()
        harness.refuse(.stopVoiceBroadcast, by: host, .noVoiceBroadcast)
        harness.perform(.startVoiceBroadcast, by: host)
        harness.refuse(.stopVoiceBroadcast, by: UserID(2), .notPermitted)
        harness.refuse(.stopVoiceBroadcast, by: UserID(3), .notPermitted)
        #expect(harness.perform(.stopVoiceBroadcast, by: host) == [.voiceBroadcast(host, active: false)])
        #expect(harness.state.voiceBroadcaster == nil)
        #expect(!harness.state.mediaSources(for: UserID(3)).contains(MediaSource(publisher: host, kind: .audio)))
        // The host stops a manager's; a manager its own.
        harness.perform(.startVoiceBroadcast, by: UserID(2))
        #expect(harness.perform(.stopVoiceBroadcast, by: host) == [.voiceBroadcast(UserID(2), active: false)])
        harness.perform(.startVoiceBroadcast, by: UserID(2))
        #expect(harness.perform(.stopVoiceBroadcast, by: UserID(2)) == [.voiceBroadcast(UserID(2), active: false)])
        harness.refuse(.stopVoiceBroadcast, by: UserID(2), .noVoiceBroadcast)
    }

    /// Each cause of an end, on its own: the broadcast ends with an event of its own.
    static let endings: [(String, @Sendable (inout Harness) -> Void)] = [
        ("leave", { $0.perform(.leave(endSession: false), by: UserID(2)) }),
        ("removed", { $0.perform(.remove(UserID(2)), by: host) }),
        ("timed out", { harness in
            harness.perform(.connectionLost(UserID(2)), by: .server)
            harness.tick(after: 3600)
        }),
        ("manager revoked", { $0.perform(.revokeManager(UserID(2)), by: host) }),
    ]

    @Test(arguments: endings.indices)
    func theBroadcastEndsWhenItsBroadcasterGoesOrLosesTheRole(_ index: Int) {
        var (harness, _, _) = Self.classroom()
        harness.perform(.startVoiceBroadcast, by: UserID(2))
        let before = harness.log.count
        Self.endings[index].1(&harness)
        #expect(harness.state.voiceBroadcaster == nil, "\(Self.endings[index].0)")
        #expect(harness.log[before...].contains(.voiceBroadcast(UserID(2), active: false)), "\(Self.endings[index].0)")
        #expect(!harness.state.mediaSources(for: UserID(3)).contains(Self.voice))
    }

    @Test func theHostLosingTheHostRoleEndsItsBroadcastAndTheSessionsEndEndsAll() {
        var (harness, _, _) = Self.classroom()
        harness.perform(.startVoiceBroadcast, by: host)
        harness.perform(.transferHost(to: UserID(6)), by: host)
        #expect(harness.state.voiceBroadcaster == nil)
        #expect(harness.log.last(where: { if case .voiceBroadcast = $0 { true } else { false } }) == .voiceBroadcast(host, active: false))
        harness.perform(.startVoiceBroadcast, by: UserID(6))
        harness.perform(.endSession, by: UserID(6))
        #expect(harness.state.voiceBroadcaster == nil)
    }

    @Test func theBroadcasterIsInEverySnapshotAndSurvivesAStoredState() throws {
        var (harness, _, _) = Self.classroom()
        harness.perform(.startVoiceBroadcast, by: UserID(2))
        let snapshot = SessionSnapshot(state: harness.state, viewer: UserID(5), seq: 1)
        #expect(snapshot.voiceBroadcaster == UserID(2))
        #expect(SessionState(restoring: snapshot) == harness.state.visible(to: UserID(5)))
        let stored = try JSONEncoder().encode(harness.state)
        #expect(try JSONDecoder().decode(SessionState.self, from: stored) == harness.state)
    }
}

extension VoiceBroadcastRules {
    @Test func aHostTokenTakingTheRoleBackEndsTheInheritorsBroadcastAndListenIn() throws {
        var (harness, a, _) = Self.classroom()
        harness.perform(.leave(endSession: false), by: host)
        let inheritor = try #require(harness.state.hostID)
        #expect(harness.state.users[inheritor]?.claim != .host)
        harness.perform(.startVoiceBroadcast, by: inheritor)
        harness.perform(.listenIn(a), by: inheritor)
        // A user with a host token takes the role back from one who only inherited it.
        let head = harness.join("Head", claim: .host)
        #expect(harness.state.hostID == head)
        #expect(harness.state.role(of: inheritor) == .participant)
        #expect(harness.state.voiceBroadcaster == nil)
        #expect(harness.state.listeners.isEmpty)
        #expect(harness.log.suffix(3).contains(.voiceBroadcast(inheritor, active: false)))
        #expect(harness.log.suffix(3).contains(.listening(inheritor, room: a, active: false)))
    }
}
