import CaucusCore
import Testing

/// DESIGN §1, beyond the seeds: assigning, moving and auto-assigning users.
@Suite struct MoveRules {
    @Test func managersAssignOrMoveAnyUser() {
        var harness = Harness.session(participants: 3)
        harness.perform(.makeManager(UserID(2)), by: host)
        harness.startRooms(["A", "B"])
        let (a, b) = (harness.roomID(named: "A"), harness.roomID(named: "B"))
        harness.perform(.assign([UserID(3), UserID(4)], to: a), by: UserID(2))
        #expect(harness.location(of: UserID(3)) == .room(a) && harness.location(of: UserID(4)) == .room(a))
        harness.perform(.assign([UserID(3)], to: b), by: host)
        #expect(harness.location(of: UserID(3)) == .room(b))
        harness.refuse(.assign([UserID(3)], to: b), by: .user(host), .alreadyInRoom)
        harness.refuse(.assign([], to: b), by: .user(host), .emptyUserList)
        harness.refuse(.assign([UserID(42)], to: b), by: .user(host), .userNotFound)
        harness.refuse(.assign([UserID(3)], to: RoomID(77)), by: .user(host), .roomNotFound)
    }

    @Test func assigningBeforeTheStartRecordsThePlanAndStartMovesThem() {
        var harness = Harness.session(participants: 3)
        harness.commitRooms(["A", "B"])
        let a = harness.roomID(named: "A")
        harness.perform(.assign([UserID(2)], to: a), by: host)
        #expect(harness.state.room(a)?.assigned == [UserID(2)])
        #expect(harness.location(of: UserID(2)) == .main)
        harness.perform(.start(StartOptions()), by: host)
        #expect(harness.location(of: UserID(2)) == .room(a))
    }

    @Test func theHostPreAssignsUsersInThePlan() {
        var harness = Harness.session(participants: 3)
        harness.perform(.addToPreList(["A", "B"]), by: host)
        harness.perform(.preAssign([UserID(2), UserID(3)], to: "A"), by: host)
        harness.perform(.preAssign([UserID(3)], to: "B"), by: host)
        #expect(harness.state.preList.map(\.assigned) == [[UserID(2)], [UserID(3)]])
        harness.refuse(.preAssign([UserID(2)], to: "Z"), by: .user(host), .notInPreList)
        harness.perform(.commit, by: host)
        harness.perform(.start(StartOptions()), by: host)
        #expect(harness.location(of: UserID(2)) == .room(harness.roomID(named: "A")))
        #expect(harness.location(of: UserID(3)) == .room(harness.roomID(named: "B")))
        #expect(harness.location(of: UserID(4)) == .main)
    }

    @Test func startWithAutoAssignDistributesEveryoneElseBalancedInOneEvent() {
        var harness = Harness.session(participants: 20)
        harness.perform(.makeManager(UserID(2)), by: host)
        harness.perform(.addToPreList(["A", "B", "C"]), by: host)
        harness.perform(.preAssign([UserID(3)], to: "A"), by: host)
        harness.perform(.commit, by: host)
        let events = harness.perform(.start(StartOptions(autoAssign: true)), by: host)
        #expect(events.count == 1, "start with auto-assign is one event carrying every move")
        let sizes = harness.state.rooms.map(\.occupants.count)
        #expect(sizes.reduce(0, +) == 19, "19 participants placed; host and manager stay")
        #expect(sizes.max()! - sizes.min()! <= 1)
        #expect(harness.location(of: UserID(3)) == .room(harness.roomID(named: "A")))
        #expect(harness.location(of: host) == .main && harness.location(of: UserID(2)) == .main)
    }

    @Test func autoAssignBalancesAndRespectsCapacity() {
        var harness = Harness.session(participants: 7)
        harness.perform(.createRooms(RoomDefinition(capacity: 3), count: 2), by: host)
        harness.perform(.autoAssign, by: host)
        #expect(harness.state.rooms.map(\.occupants.count) == [3, 3])
        #expect(harness.state.users.values.filter { $0.location == .main }.count == 2)
        let waiting = harness.state.users.values.first { $0.location == .main && $0.id != host }!.id
        harness.refuse(.assign([waiting], to: harness.state.rooms[0].id), by: .user(host), .roomFull)
    }

    @Test func autoAssignBeforeTheStartFillsThePlan() {
        var harness = Harness.session(participants: 4)
        harness.commitRooms(["A", "B"])
        harness.perform(.autoAssign, by: host)
        #expect(harness.state.rooms.map(\.assigned.count) == [2, 2])
        harness.refuse(.autoAssign, by: .user(host), .nobodyToMove)
    }

    @Test func managersSendOneUserOrEveryoneBack() {
        var harness = Harness.session(participants: 4)
        harness.startRooms(["A"], options: StartOptions(autoAssign: true))
        harness.perform(.returnUser(UserID(2)), by: host)
        #expect(harness.location(of: UserID(2)) == .main)
        harness.refuse(.returnUser(UserID(2)), by: .user(host), .notInRoom)
        harness.perform(.returnEveryone, by: host)
        #expect(harness.state.users.values.allSatisfy { $0.location == .main })
    }

    @Test func everyoneBackDuringTheStopCountdownEndsTheStopAtOnce() {
        var harness = Harness.session(participants: 2)
        harness.startRooms(["A"], options: StartOptions(autoAssign: true))
        harness.perform(.stop(countdownSeconds: 30), by: host)
        harness.perform(.returnEveryone, by: host)
        #expect(harness.state.status == .stopped)
        #expect(harness.state.users.values.allSatisfy { $0.location == .main })
        // The rooms may start again at once, and the countdown's end changes nothing.
        harness.perform(.start(StartOptions()), by: host)
        harness.tick(after: 30)
        #expect(harness.state.status == .started)
    }

    @Test func theSameInputsAlwaysGiveTheSameEvents() {
        let harness = Harness.session(participants: 30)
        var one = harness
        var two = harness
        one.commitRooms(["A", "B", "C"])
        two.commitRooms(["A", "B", "C"])
        #expect(one.perform(.start(StartOptions(autoAssign: true)), by: host) == two.perform(.start(StartOptions(autoAssign: true)), by: host))
    }
}
