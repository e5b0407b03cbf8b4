import CaucusCore
import Testing

/// Renaming a planned or a committed room, and taking users out of the plan (issue 11).
/// Users: u1 host, u2 manager (where made one), u3, u4 participants.
@Suite struct RoomEditRules {
    @Test func theHostRenamesAPlannedRoomAndItKeepsItsUsers() throws {
        var harness = Harness.session(participants: 3)
        harness.perform(.addToPreList(["Red", "Blue"]), by: host)
        harness.perform(.preAssign([UserID(3)], to: "Red"), by: host)
        let events = harness.perform(.renamePlannedRoom("red", to: "Crimson"), by: host)
        let plan = [PlannedRoom(name: "Crimson", assigned: [UserID(3)]), PlannedRoom(name: "Blue")]
        #expect(events == [.preListChanged(plan)])
        // The plan is the host's: the event reaches the host alone, as every pre-list change.
        #expect(harness.state.recipients(of: try #require(events.first)) == [host])
        // Changing only the letters' case of its own name is a rename, not a collision.
        harness.perform(.renamePlannedRoom("Crimson", to: "CRIMSON"), by: host)
        #expect(harness.state.preList.map(\.name) == ["CRIMSON", "Blue"])
        harness.perform(.commit, by: host)
        #expect(harness.state.rooms.map(\.name) == ["CRIMSON", "Blue"])
        #expect(try #require(harness.state.rooms.first).assigned == [UserID(3)])
    }

    @Test func aPlannedRoomsNewNameFollowsTheNameRuleAndIsUniqueInThePlan() throws {
        var harness = Harness.session(participants: 1)
        harness.perform(.addToPreList(["Red", "Blue"]), by: host)
        harness.refuse(.renamePlannedRoom("Red", to: "blue"), by: host, .duplicateRoomName)
        harness.refuse(.renamePlannedRoom("Red", to: "  "), by: host, .roomNameEmpty)
        harness.refuse(.renamePlannedRoom("Red", to: String(repeating: "x", count: 151)), by: host, .roomNameTooLong)
        harness.refuse(.renamePlannedRoom("Red", to: "Re\u{202E}d"), by: host, .nameCharacterForbidden)
        harness.refuse(.renamePlannedRoom("Green", to: "Teal"), by: host, .notInPreList)
        // Only the host plans; a manager is refused and nothing changes.
        harness.perform(.makeManager(UserID(2)), by: host)
        harness.refuse(.renamePlannedRoom("Red", to: "Teal"), by: UserID(2), .notPermitted)
        #expect(harness.state.preList.map(\.name) == ["Red", "Blue"])
    }

    @Test func renamingAnOpenRoomChangesOnlyItsName() throws {
        var harness = Harness.session(participants: 4)
        harness.perform(.makeManager(UserID(2)), by: host)
        harness.startRooms(["Red", "Blue"], options: StartOptions(durationSeconds: 600))
        let red = harness.roomID(named: "Red")
        let blue = harness.roomID(named: "Blue")
        harness.perform(.assign([UserID(3)], to: red), by: host)
        harness.perform(.invite([UserID(4)], to: red, forceJoin: false), by: host)
        harness.perform(.requestHelp, by: UserID(3))
        let before = harness.state

        // A manager may rename a room, as they run the rooms.
        let events = harness.perform(.renameRoom(red, to: "Green"), by: UserID(2))
        #expect(events == [.roomRenamed(red, name: "Green")])
        // Everyone sees the committed list, so everyone hears it.
        #expect(harness.state.recipients(of: try #require(events.first)) == Array(harness.state.users.keys))
        #expect(harness.state.room(red)?.name == "Green")
        #expect(harness.state.room(red)?.occupants == before.room(red)?.occupants)
        #expect(harness.state.room(red)?.assigned == before.room(red)?.assigned)
        #expect(harness.state.room(blue) == before.room(blue))
        #expect(harness.state.users == before.users)
        #expect(harness.state.invitations == before.invitations)
        #expect(harness.state.timer == before.timer && harness.state.phase == before.phase)
        // The waiting help request now names the room as it is called.
        #expect(harness.state.helpRequests.map(\.roomName) == ["Green"])
        #expect(harness.state.helpRequests.map(\.room) == [red])

        // The room works as before under its new name: its chat, the invitation, the request.
        let chat = harness.perform(.chat("still here", to: .room), by: UserID(3))
        #expect(harness.state.recipients(of: try #require(chat.first)) == [UserID(3)])
        harness.perform(.acceptInvitation(red), by: UserID(4))
        #expect(harness.location(of: UserID(4)) == .room(red))
        harness.perform(.answerHelp(try #require(harness.state.helpRequests.first).id, .join), by: UserID(2))
        #expect(harness.location(of: UserID(2)) == .room(red))
    }

    @Test func renamingACommittedRoomKeepsWhoItExpects() throws {
        var harness = Harness.session(participants: 2)
        harness.commitRooms(["Red", "Blue"])
        let red = harness.roomID(named: "Red")
        harness.perform(.assign([UserID(2)], to: red), by: host)
        harness.perform(.renameRoom(red, to: "Green"), by: host)
        #expect(harness.state.rooms.map(\.name) == ["Green", "Blue"])
        #expect(harness.state.status == .committed)
        // The pre-list is a separate plan and keeps its own names.
        #expect(harness.state.preList.map(\.name) == ["Red", "Blue"])
        harness.perform(.start(StartOptions()), by: host)
        #expect(harness.location(of: UserID(2)) == .room(red))
        #expect(harness.state.room(red)?.name == "Green")
    }

    @Test func aRoomsNewNameFollowsTheNameRuleAndIsUniqueAmongTheRooms() throws {
        var harness = Harness.session(participants: 2)
        harness.startRooms(["Red", "Blue"])
        let red = harness.roomID(named: "Red")
        harness.refuse(.renameRoom(red, to: "BLUE"), by: host, .duplicateRoomName)
        harness.refuse(.renameRoom(red, to: ""), by: host, .roomNameEmpty)
        harness.refuse(.renameRoom(red, to: String(repeating: "x", count: 151)), by: host, .roomNameTooLong)
        harness.refuse(.renameRoom(red, to: "Red\u{0007}"), by: host, .nameCharacterForbidden)
        harness.refuse(.renameRoom(RoomID(99), to: "Teal"), by: host, .roomNotFound)
        harness.refuse(.renameRoom(red, to: "Teal"), by: UserID(2), .notPermitted)
        harness.perform(.renameRoom(red, to: "RED"), by: host)
        // Closed rooms keep their names and may be renamed; removed ones are gone.
        harness.perform(.stop(countdownSeconds: 0), by: host)
        harness.perform(.renameRoom(red, to: "Teal"), by: host)
        #expect(harness.state.rooms.map(\.name) == ["Teal", "Blue"])
        harness.perform(.destroyAll, by: host)
        harness.refuse(.renameRoom(red, to: "Gold"), by: host, .roomNotFound)
    }

    @Test func theHostTakesUsersOutOfThePlan() throws {
        var harness = Harness.session(participants: 3)
        harness.perform(.addToPreList(["Red", "Blue"]), by: host)
        harness.perform(.preAssign([UserID(2), UserID(3)], to: "Red"), by: host)
        harness.perform(.preAssign([UserID(4)], to: "Blue"), by: host)

        // Before a commit the plan is the pre-list: one event, to the host.
        let events = harness.perform(.unassign([UserID(2)]), by: host)
        #expect(events == [.preListChanged([PlannedRoom(name: "Red", assigned: [UserID(3)]), PlannedRoom(name: "Blue", assigned: [UserID(4)])])])
        #expect(harness.state.recipients(of: try #require(events.first)) == [host])
        #expect(harness.state.users[UserID(2)]?.location == .main)

        // Once committed, the rooms' assignments lose them too (everyone sees those).
        harness.perform(.commit, by: host)
        let red = harness.roomID(named: "Red")
        let blue = harness.roomID(named: "Blue")
        let both = harness.perform(.unassign([UserID(3), UserID(2)]), by: host)
        #expect(
            both == [
                .preListChanged([PlannedRoom(name: "Red"), PlannedRoom(name: "Blue", assigned: [UserID(4)])]),
                .assignmentsChanged([RoomAssignment(room: red, users: []), RoomAssignment(room: blue, users: [UserID(4)])]),
            ])
        #expect(harness.state.recipients(of: try #require(both.last)).count == 4)

        // Whom the plan does not hold cannot be taken out of it.
        harness.refuse(.unassign([UserID(2), UserID(3)]), by: host, .notAssigned)
        harness.refuse(.unassign([]), by: host, .emptyUserList)
        harness.refuse(.unassign([UserID(42)]), by: host, .userNotFound)

        // Nobody moves: started with u4 in Blue, taking u4 out of the plan leaves u4 there,
        // and the next start after a stop no longer brings u4.
        harness.perform(.start(StartOptions()), by: host)
        #expect(harness.location(of: UserID(4)) == .room(blue))
        harness.perform(.unassign([UserID(4)]), by: host)
        #expect(harness.location(of: UserID(4)) == .room(blue))
        harness.perform(.stop(countdownSeconds: 0), by: host)
        harness.perform(.start(StartOptions()), by: host)
        #expect(harness.location(of: UserID(4)) == .main)
    }

    @Test func onlyTheHostTakesUsersOutOfThePlan() throws {
        var harness = Harness.session(participants: 3)
        harness.perform(.makeManager(UserID(2)), by: host)
        harness.commitRooms(["Red"])
        harness.perform(.assign([UserID(3)], to: harness.roomID(named: "Red")), by: UserID(2))
        harness.refuse(.unassign([UserID(3)]), by: UserID(2), .notPermitted)
        harness.refuse(.unassign([UserID(3)]), by: UserID(3), .notPermitted)
        #expect(try #require(harness.state.rooms.first).assigned == [UserID(3)])
        // The server (the control API) acts with host authority.
        harness.perform(.unassign([UserID(3)]), by: .server)
        #expect(try #require(harness.state.rooms.first).assigned.isEmpty)
    }

    @Test func aClientsCopyFollowsRenamesAndUnassignments() throws {
        var harness = Harness.session(participants: 2)
        harness.perform(.addToPreList(["Red"]), by: host)
        harness.perform(.preAssign([UserID(2)], to: "Red"), by: host)
        harness.perform(.commit, by: host)
        var hostCopy = SessionState(restoring: SessionSnapshot(state: harness.state, viewer: host, seq: 1))
        var participantCopy = SessionState(restoring: SessionSnapshot(state: harness.state, viewer: UserID(3), seq: 1))
        let red = harness.roomID(named: "Red")
        let events = harness.perform(.renameRoom(red, to: "Green"), by: host)
            + harness.perform(.renamePlannedRoom("Red", to: "Teal"), by: host)
            + harness.perform(.unassign([UserID(2)]), by: host)
        for event in events {
            if harness.state.recipients(of: event).contains(host) { hostCopy.apply(event) }
            if harness.state.recipients(of: event).contains(UserID(3)) { participantCopy.apply(event) }
        }
        #expect(hostCopy == harness.state.visible(to: host))
        #expect(participantCopy == harness.state.visible(to: UserID(3)))
        #expect(participantCopy.rooms.map(\.name) == ["Green"] && participantCopy.rooms.first?.assigned == [])
        #expect(hostCopy.preList == [PlannedRoom(name: "Teal")])
    }
}
