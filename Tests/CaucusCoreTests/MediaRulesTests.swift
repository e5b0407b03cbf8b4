import CaucusCore
import Testing

/// Publishing media, and who receives it: the rules one at a time.
@Suite struct MediaRules {
    @Test func aUserPublishesForItselfAndEveryoneHearsOfIt() {
        var harness = Harness.session(participants: 2)
        let events = harness.perform(.publish([.audio, .video]), by: UserID(2))
        #expect(events == [.mediaChanged(UserID(2), publishing: [.audio, .video])])
        #expect(harness.state.recipients(of: events[0]) == Array(harness.state.users.keys))
        #expect(harness.state.users[UserID(2)]?.publishing == [.audio, .video])
        // Muting the microphone is publishing the rest.
        harness.perform(.publish([.video]), by: UserID(2))
        #expect(harness.state.users[UserID(2)]?.publishing == [.video])
        harness.refuse(.publish([.video]), by: .user(UserID(2)), .mediaUnchanged)
        harness.refuse(.publish([.audio]), by: .server, .userRequired)
    }

    @Test func mediaStateIsInTheSnapshotAndRestored() {
        var harness = Harness.session(participants: 2)
        harness.perform(.publish([.audio, .screenShare]), by: UserID(3))
        let snapshot = SessionSnapshot(state: harness.state, viewer: UserID(2), seq: 9)
        #expect(snapshot.users.first { $0.id == UserID(3) }?.publishing == [.audio, .screenShare])
        let restored = SessionState(restoring: snapshot)
        #expect(restored == harness.state.visible(to: UserID(2)))
        #expect(restored.users[UserID(3)]?.publishing == [.audio, .screenShare])
    }

    @Test func aUserWhoLeavesIsRemovedOrTimesOutStopsPublishingAtOnce() {
        var harness = Harness.session(participants: 3)
        for id in 2...4 { harness.perform(.publish(.all), by: UserID(id)) }
        #expect(harness.state.mediaSources(for: host).count == 9)
        harness.perform(.leave(endSession: false), by: UserID(2))
        harness.perform(.remove(UserID(3)), by: host)
        harness.perform(.connectionLost(UserID(4)), by: .server)
        // Reconnecting: the seat and the publication are kept, nothing is forwarded.
        #expect(harness.state.users[UserID(4)]?.publishing == .all)
        #expect(harness.state.mediaSources(for: host).isEmpty)
        harness.perform(.resume(UserID(4)), by: .server)
        #expect(harness.state.mediaSources(for: host).count == 3)
        harness.perform(.connectionLost(UserID(4)), by: .server)
        harness.now = harness.now.adding(seconds: 3600)
        harness.perform(.tick, by: .server)
        #expect(harness.state.users[UserID(4)] == nil)
        #expect(harness.state.mediaSources(for: host).isEmpty)
        // A later user with the same seat number cannot inherit anything: ids are never reused.
        let newcomer = harness.join("Late")
        #expect(harness.state.users[newcomer]?.publishing == [])
    }

    /// A reconnecting user whose media is kept (its peer lives on, which only the caller knows)
    /// is forwarded and receives as if connected, in its location as it is now: a move while
    /// it is away applies at once. Without it kept, nothing; a voice broadcast follows the same.
    @Test func aReconnectingUserWithItsMediaKeptIsForwardedWhereItIsNow() {
        var harness = Harness.session(participants: 3)
        harness.perform(.createRooms(RoomDefinition(), count: 1), by: host)
        let room = harness.state.rooms[0].id
        for id in 2...4 { harness.perform(.publish([.audio]), by: UserID(id)) }
        harness.perform(.connectionLost(UserID(4)), by: .server)
        let kept = { (user: UserID) in user == UserID(4) }
        let four = MediaSource(publisher: UserID(4), kind: .audio)
        #expect(!harness.state.mediaSources(for: UserID(2)).contains(four), "not kept: nothing forwarded")
        #expect(harness.state.mediaSources(for: UserID(4)).isEmpty)
        #expect(harness.state.mediaSources(for: UserID(2), mediaKept: kept).contains(four))
        #expect(harness.state.mediaSources(for: UserID(4), mediaKept: kept).map(\.publisher) == [UserID(2), UserID(3)])
        #expect(harness.state.mediaSources(in: .main, mediaKept: kept).map(\.publisher) == [UserID(2), UserID(3), UserID(4)])
        // Moved while away: its media leaves the main session at once and reaches the room.
        harness.perform(.invite([UserID(4), UserID(3)], to: room, forceJoin: true), by: host)
        #expect(harness.state.users[UserID(4)]?.location == .room(room))
        #expect(!harness.state.mediaSources(for: UserID(2), mediaKept: kept).contains(four))
        #expect(harness.state.mediaSources(for: UserID(3), mediaKept: kept) == [four])
        #expect(harness.state.mediaSources(for: UserID(4), mediaKept: kept).map(\.publisher) == [UserID(3)])
        // A broadcaster away with its media kept is still heard everywhere; not kept, it is not.
        harness.perform(.resume(UserID(4)), by: .server)
        harness.perform(.returnEveryone, by: host)
        harness.perform(.publish([.audio]), by: host)
        harness.perform(.startVoiceBroadcast, by: host)
        harness.perform(.connectionLost(host), by: .server)
        let hostKept = { (user: UserID) in user == host }
        #expect(harness.state.broadcastVoice == nil)
        #expect(harness.state.broadcastVoice(mediaKept: hostKept) == MediaSource(publisher: host, kind: .audio))
    }

    @Test func eachUserReceivesItsOwnLocationOnlyAndNeverItself() {
        var harness = Harness.session(participants: 3)
        harness.perform(.createRooms(RoomDefinition(), count: 1), by: host)
        let room = harness.state.rooms[0].id
        for id in 1...4 { harness.perform(.publish([.audio]), by: UserID(id)) }
        harness.perform(.joinRoom(room), by: UserID(3))
        harness.perform(.joinRoom(room), by: UserID(4))
        #expect(harness.state.mediaSources(for: host) == [MediaSource(publisher: UserID(2), kind: .audio)])
        #expect(harness.state.mediaSources(for: UserID(3)) == [MediaSource(publisher: UserID(4), kind: .audio)])
        // Nothing of the main session reaches the room, and the room reaches no one outside.
        #expect(harness.state.mediaSources(in: .room(room)).map(\.publisher) == [UserID(3), UserID(4)])
    }

    @Test func aRoomForwardsOnlyTheKindsItsDefinitionAllows() {
        var harness = Harness.session(participants: 2)
        harness.perform(.createAndInvite(RoomDefinition(audio: true, video: false, screenShare: false), count: 1, forceJoin: true), by: host)
        for id in 2...3 { harness.perform(.publish(.all), by: UserID(id)) }
        #expect(harness.state.mediaSources(for: UserID(2)) == [MediaSource(publisher: UserID(3), kind: .audio)])
    }

    @Test func aMutedMainSessionForwardsNoAudioOrVideoButScreenShares() {
        var harness = Harness.session(participants: 2)
        harness.perform(.createRooms(RoomDefinition(), count: 1), by: host)
        harness.perform(.publish(.all), by: UserID(2))
        harness.perform(.muteParent(audio: true, video: false), by: host)
        #expect(harness.state.mediaSources(for: UserID(3)).map(\.kind) == [.video, .screenShare])
        harness.perform(.muteParent(audio: false, video: true), by: host)
        #expect(harness.state.mediaSources(for: UserID(3)).map(\.kind) == [.screenShare])
        // The host is muted too: it is the main session's audio and video that are off.
        harness.perform(.publish(.all), by: host)
        #expect(harness.state.mediaSources(for: UserID(3)).map(\.kind) == [.screenShare, .screenShare])
        harness.perform(.unmuteParent(audio: true, video: true), by: host)
        #expect(harness.state.mediaSources(for: UserID(3)).count == 6)
    }

    @Test func aPausedMainSessionHoldsItsParticipantsButNotTheHostOrManagers() {
        var harness = Harness.session(participants: 3)
        harness.perform(.makeManager(UserID(2)), by: host)
        harness.perform(.createRooms(RoomDefinition(), count: 1), by: host)
        for id in 1...4 { harness.perform(.publish([.audio]), by: UserID(id)) }
        harness.perform(.pauseParent, by: host)
        #expect(harness.state.mediaSources(for: UserID(4)).map(\.publisher) == [host, UserID(2)])
        #expect(harness.state.mediaSources(for: host).map(\.publisher) == [UserID(2)])
        harness.perform(.resumeParent, by: host)
        #expect(harness.state.mediaSources(for: UserID(4)).map(\.publisher) == [host, UserID(2), UserID(3)])
    }

    @Test func aPublicationOutlivesAMoveSoReturningNeedsNothingFromTheClient() {
        var harness = Harness.session(participants: 2)
        harness.perform(.createAndInvite(RoomDefinition(video: false), count: 1, forceJoin: true), by: host)
        harness.perform(.publish([.video]), by: UserID(2))
        #expect(harness.state.mediaSources(for: UserID(3)).isEmpty)
        harness.perform(.returnEveryone, by: host)
        #expect(harness.state.mediaSources(for: UserID(3)) == [MediaSource(publisher: UserID(2), kind: .video)])
    }
}
