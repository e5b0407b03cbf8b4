import CaucusCore
import Testing

/// DESIGN §1, Breakout rooms: the create-and-invite flow.
@Suite struct BreakoutRoomRules {
    let definition = RoomDefinition(capacity: 3, audio: true, video: false, screenShare: true, canvas: false)

    @Test func createNRoomsAtOnceWithADefinition() {
        var harness = Harness.session(participants: 3)
        harness.perform(.makeManager(UserID(2)), by: host)
        let events = harness.perform(.createRooms(definition, count: 3), by: host)
        #expect(harness.state.rooms.map(\.name) == ["Room 1", "Room 2", "Room 3"])
        #expect(harness.state.rooms.allSatisfy { $0.definition == definition })
        #expect(harness.state.status == .started, "rooms made this way are open at once")
        // Managers are notified (with everyone: the committed list changed).
        #expect(harness.state.recipients(of: events[0]).contains(UserID(2)))
        harness.refuse(.createRooms(RoomDefinition(capacity: 1), count: 1), by: .user(host), .invalidRoomDefinition)
        harness.refuse(.createRooms(definition, count: 0), by: .user(host), .invalidRoomDefinition)
        harness.perform(.createRooms(definition, count: 1), by: host)
        #expect(harness.state.rooms.map(\.name).last == "Room 4")
    }

    @Test func createAndInviteDistributesTheMainRoomRandomlyAndBalanced() {
        var harness = Harness.session(participants: 10)
        harness.perform(.createAndInvite(RoomDefinition(), count: 3, forceJoin: true), by: host)
        let sizes = harness.state.rooms.map(\.occupants.count)
        #expect(sizes.reduce(0, +) == 10)
        #expect(sizes.max()! - sizes.min()! <= 1)
        #expect(harness.location(of: host) == .main, "the host is not distributed")

        var other = Harness.session(participants: 10)
        other.entropy = 7
        other.perform(.createAndInvite(RoomDefinition(), count: 3, forceJoin: true), by: host)
        #expect(other.state.rooms.map(\.occupants) != harness.state.rooms.map(\.occupants), "the split is random")
    }

    @Test func createAndInviteWithoutForceJoinInvites() {
        var harness = Harness.session(participants: 4)
        let events = harness.perform(.createAndInvite(RoomDefinition(), count: 2, forceJoin: false), by: host)
        let invited = events.compactMap { event -> Invitation? in
            if case .invited(let invitation) = event { return invitation }
            return nil
        }
        #expect(invited.flatMap(\.users).count == 4)
        #expect(harness.state.rooms.allSatisfy { $0.occupants.isEmpty })
        #expect(harness.state.invitations.count == 4)
    }

    @Test func aCapacityLimitsParticipantsButNotManagers() {
        var harness = Harness.session(participants: 4)
        harness.perform(.createRooms(RoomDefinition(capacity: 2), count: 1), by: host)
        let room = harness.state.rooms[0].id
        harness.perform(.joinRoom(room), by: UserID(2))
        harness.perform(.joinRoom(room), by: UserID(3))
        harness.refuse(.joinRoom(room), by: .user(UserID(4)), .roomFull)
        harness.perform(.joinRoom(room), by: host)
        #expect(harness.state.room(room)?.occupants.count == 3)
    }

    @Test func inviteWithAndWithoutForceJoin() {
        var harness = Harness.session(participants: 3)
        harness.perform(.createRooms(RoomDefinition(), count: 1), by: host)
        let room = harness.state.rooms[0].id
        let invite = harness.perform(.invite([UserID(2)], to: room, forceJoin: false), by: host)
        #expect(Set(harness.state.recipients(of: invite[0])) == Set([host, UserID(2)]))
        #expect(harness.location(of: UserID(2)) == .main)
        harness.perform(.invite([UserID(3)], to: room, forceJoin: true), by: host)
        #expect(harness.location(of: UserID(3)) == .room(room))
        harness.perform(.acceptInvitation(room), by: UserID(2))
        #expect(harness.location(of: UserID(2)) == .room(room))
        harness.refuse(.acceptInvitation(room), by: .user(UserID(4)), .invitationNotFound)
    }

    @Test func inviteesRejectAndManagersAreNotified() {
        var harness = Harness.session(participants: 3)
        harness.perform(.makeManager(UserID(4)), by: host)
        harness.perform(.createRooms(RoomDefinition(), count: 1), by: host)
        let room = harness.state.rooms[0].id
        harness.perform(.invite([UserID(2)], to: room, forceJoin: false), by: host)
        let events = harness.perform(.rejectInvitation(room), by: UserID(2))
        #expect(events == [.invitationRejected(UserID(2), room: room)])
        #expect(Set(harness.state.recipients(of: events[0])) == Set([host, UserID(2), UserID(4)]))
        #expect(harness.state.invitations[UserID(2)] == nil)
        harness.refuse(.rejectInvitation(room), by: .user(UserID(2)), .invitationNotFound)
    }

    @Test func inviteAndCreateWorkOnlyFromTheParentRoomAndRoomsDoNotNest() {
        var harness = Harness.session(participants: 2)
        harness.perform(.createRooms(RoomDefinition(), count: 2), by: host)
        let room = harness.state.rooms[0].id
        harness.perform(.joinRoom(room), by: host)
        harness.refuse(.invite([UserID(2)], to: room, forceJoin: true), by: .user(host), .notInParentRoom)
        harness.refuse(.createRooms(RoomDefinition(), count: 1), by: .user(host), .notInParentRoom)
    }

    @Test func aUserIsInAtMostOneRoomMovingDirectlyBetweenRooms() {
        var harness = Harness.session(participants: 1)
        harness.perform(.createRooms(RoomDefinition(), count: 2), by: host)
        let (first, second) = (harness.state.rooms[0].id, harness.state.rooms[1].id)
        harness.perform(.joinRoom(first), by: UserID(2))
        harness.perform(.joinRoom(second), by: UserID(2))
        #expect(harness.state.rooms.filter { $0.occupants.contains(UserID(2)) }.map(\.id) == [second])
    }

    @Test func theParentPausesResumesMutesAndUnmutesWhileBreakoutsRun() {
        var harness = Harness.session(participants: 2)
        harness.refuse(.pauseParent, by: .user(host), .wrongStatus)
        harness.perform(.createRooms(RoomDefinition(), count: 1), by: host)
        harness.perform(.pauseParent, by: host)
        #expect(harness.state.parent.paused)
        harness.refuse(.pauseParent, by: .user(host), .parentAlreadyPaused)
        harness.perform(.muteParent(audio: true, video: false), by: host)
        #expect(harness.state.parent == ParentControl(paused: true, audioMuted: true, videoMuted: false))
        harness.refuse(.muteParent(audio: true, video: false), by: .user(host), .nothingToMute)
        harness.refuse(.muteParent(audio: false, video: false), by: .user(host), .nothingToMute)
        harness.perform(.unmuteParent(audio: true, video: true), by: host)
        harness.perform(.resumeParent, by: host)
        #expect(harness.state.parent == .open)
        harness.refuse(.resumeParent, by: .user(host), .parentNotPaused)
    }

    @Test func usersInARoomReceiveNothingOfTheParentRoom() {
        var harness = Harness.session(participants: 2)
        harness.perform(.createRooms(RoomDefinition(), count: 1), by: host)
        harness.perform(.joinRoom(harness.state.rooms[0].id), by: UserID(2))
        let chat = harness.perform(.chat("main only", to: .room), by: UserID(3))
        #expect(Set(harness.state.recipients(of: chat[0])) == Set([host, UserID(3)]))
        // A paused parent is quiet for its participants.
        harness.perform(.pauseParent, by: host)
        harness.refuse(.chat("still there?", to: .room), by: .user(UserID(3)), .parentPaused)
    }

    @Test func disconnectFromARoomReturnsTheUserToTheParent() {
        var harness = Harness.session(participants: 1)
        harness.perform(.createRooms(RoomDefinition(), count: 1), by: host)
        harness.perform(.joinRoom(harness.state.rooms[0].id), by: UserID(2))
        harness.perform(.returnToMain, by: UserID(2))
        #expect(harness.location(of: UserID(2)) == .main)
    }

    @Test func clearAllReturnsEveryoneAndRoomsStay() {
        var harness = Harness.session(participants: 6)
        harness.perform(.createAndInvite(RoomDefinition(), count: 2, forceJoin: true), by: host)
        let events = harness.perform(.returnEveryone, by: host)
        #expect(events.count == 1, "one event carries the whole move")
        #expect(harness.state.users.values.allSatisfy { $0.location == .main })
        #expect(harness.state.rooms.count == 2 && harness.state.status == .started)
        harness.refuse(.returnEveryone, by: .user(host), .nobodyToMove)
    }

    @Test func destroyAllRemovesRoomsReturnsEveryoneAndReopensTheParent() {
        var harness = Harness.session(participants: 6)
        harness.perform(.createAndInvite(RoomDefinition(), count: 2, forceJoin: true), by: host)
        harness.perform(.pauseParent, by: host)
        harness.perform(.muteParent(audio: true, video: true), by: host)
        let events = harness.perform(.destroyAll, by: host)
        #expect(events.count == 1)
        #expect(harness.state.rooms.isEmpty)
        #expect(harness.state.users.values.allSatisfy { $0.location == .main })
        #expect(harness.state.parent == .open)
        harness.refuse(.destroyAll, by: .user(host), .wrongStatus)
    }

    @Test func destroyAllLeavesStatusNoneSinceNoRoomExists() {
        var harness = Harness.session(participants: 2)
        harness.perform(.createAndInvite(RoomDefinition(), count: 2, forceJoin: true), by: host)
        harness.perform(.destroyAll, by: host)
        #expect(harness.state.status == .none, "nothing was withdrawn: there are simply no rooms")
        #expect(harness.state.rooms.isEmpty)
        harness.refuse(.withdraw, by: .user(host), .wrongStatus)
        harness.refuse(.start(StartOptions()), by: .user(host), .wrongStatus)
        // A stopped plan destroyed the same way leaves the same honest status.
        harness.startRooms(["Red"])
        harness.perform(.stop(countdownSeconds: 0), by: host)
        harness.perform(.destroyAll, by: host)
        #expect(harness.state.status == .none)
    }

    @Test func creatingRoomsAfterAStoppedListStartsAFreshListWithoutReopeningIt() {
        var harness = Harness.session(participants: 4)
        harness.startRooms(["Red", "Blue"], options: StartOptions(autoAssign: true))
        let red = harness.roomID(named: "Red")
        harness.perform(.stop(countdownSeconds: 0), by: host)
        #expect(harness.state.status == .stopped)

        harness.perform(.createAndInvite(RoomDefinition(), count: 2, forceJoin: true), by: host)
        #expect(harness.state.status == .started)
        #expect(harness.state.rooms.map(\.name) == ["Room 1", "Room 2"], "only the new rooms: Red and Blue stay closed")
        #expect(!harness.state.rooms.map(\.id).contains(red), "a new room never reuses a closed room's id")
        #expect(harness.state.rooms.flatMap(\.occupants).count == 4, "everyone is distributed to the new rooms")
        harness.refuse(.joinRoom(red), by: .user(host), .roomNotFound)
        // Stopping and starting again brings back the new list, not the old one.
        harness.perform(.stop(countdownSeconds: 0), by: host)
        harness.perform(.start(StartOptions()), by: host)
        #expect(harness.state.rooms.map(\.name) == ["Room 1", "Room 2"])
    }

    @Test func roomsAddedToACommittedOrStartedListJoinIt() {
        var harness = Harness.session(participants: 2)
        harness.commitRooms(["Red"])
        harness.perform(.createRooms(RoomDefinition(), count: 1), by: host)
        #expect(harness.state.status == .committed && harness.state.rooms.map(\.name) == ["Red", "Room 2"])
        harness.perform(.start(StartOptions()), by: host)
        harness.perform(.createRooms(RoomDefinition(), count: 1), by: host)
        #expect(harness.state.status == .started && harness.state.rooms.map(\.name) == ["Red", "Room 2", "Room 3"])
    }

    @Test func everyBreakoutOperationFailsInLectureMode() {
        var harness = Harness.session(participants: 2)
        harness.perform(.setMode(.lecture), by: host)
        let breakoutCommands: [Command] = [
            .addToPreList(["A"]), .removeFromPreList(["A"]), .clearPreList, .preAssign([UserID(2)], to: "A"), .commit,
            .withdraw, .start(StartOptions()), .stop(countdownSeconds: 0), .broadcast("x"), .extendTimer(seconds: 5),
            .assign([UserID(2)], to: RoomID(1)), .returnUser(UserID(2)), .autoAssign, .returnEveryone,
            .createRooms(RoomDefinition(), count: 1), .createAndInvite(RoomDefinition(), count: 1, forceJoin: true),
            .invite([UserID(2)], to: RoomID(1), forceJoin: true), .pauseParent, .resumeParent,
            .muteParent(audio: true, video: true), .unmuteParent(audio: true, video: true), .destroyAll,
            .answerHelp(HelpRequestID(1), .join), .renamePlannedRoom("A", to: "B"), .unassign([UserID(2)]),
            .renameRoom(RoomID(1), to: "B"),
        ]
        for command in breakoutCommands { harness.refuse(command, by: .user(host), .lectureMode) }
        let selfCommands: [Command] = [
            .joinRoom(RoomID(1)), .returnToMain, .requestHelp,
            .acceptInvitation(RoomID(1)), .rejectInvitation(RoomID(1)),
        ]
        for command in selfCommands { harness.refuse(command, by: .user(UserID(2)), .lectureMode) }
        #expect(CaucusError.Code.lectureMode.rawValue == 5067)
        // Chat and roles still work in lecture mode.
        harness.perform(.chat("lecture notes", to: .room), by: UserID(2))
        harness.perform(.setMode(.group), by: host)
        harness.perform(.createRooms(RoomDefinition(), count: 1), by: host)
        harness.refuse(.setMode(.lecture), by: .user(host), .breakoutActive)
    }

    @Test func createAndInviteIntoAnUnstartedPlanAssignsForTheStart() {
        var harness = Harness.session(participants: 4)
        harness.commitRooms(["Planned"])
        harness.perform(.createAndInvite(RoomDefinition(), count: 2, forceJoin: true), by: host)
        #expect(harness.state.status == .committed)
        #expect(harness.state.users.values.allSatisfy { $0.location == .main }, "nobody sits in a room that is not open")
        #expect(harness.state.rooms.flatMap(\.assigned).count == 4)
        harness.perform(.start(StartOptions()), by: host)
        #expect(harness.state.rooms.flatMap(\.occupants).count == 4)
    }

    @Test func createAndInviteIntoAPlanLeavesAlreadyAssignedUsersWhereTheyAre() {
        var harness = Harness.session(participants: 4)
        harness.commitRooms(["Planned"])
        harness.perform(.assign([UserID(2), UserID(3)], to: harness.roomID(named: "Planned")), by: host)
        harness.perform(.createAndInvite(RoomDefinition(), count: 1, forceJoin: true), by: host)
        #expect(harness.state.rooms[0].assigned == [UserID(2), UserID(3)])
        #expect(Set(harness.state.rooms[1].assigned) == [UserID(4), UserID(5)])
    }

    @Test func bothFlowsActOnOneModel() {
        var harness = Harness.session(participants: 2)
        harness.commitRooms(["Planned"])
        harness.perform(.createRooms(RoomDefinition(capacity: 4), count: 1), by: host)
        #expect(harness.state.rooms.map(\.name) == ["Planned", "Room 2"])
        #expect(harness.state.status == .committed, "rooms added to an unstarted plan wait for its start")
        harness.perform(.start(StartOptions()), by: host)
        let created = harness.roomID(named: "Room 2")
        // A created room is joined by choice like a planned one; a planned room takes invitations.
        harness.perform(.joinRoom(created), by: UserID(2))
        harness.perform(.invite([UserID(3)], to: harness.roomID(named: "Planned"), forceJoin: true), by: host)
        harness.perform(.stop(countdownSeconds: 0), by: host)
        #expect(harness.state.users.values.allSatisfy { $0.location == .main })
    }
}
