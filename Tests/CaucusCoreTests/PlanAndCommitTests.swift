import CaucusCore
import Testing

/// DESIGN §1, Subsessions: the plan-and-commit flow.
@Suite struct PlanAndCommitRules {
    @Test func theHostBuildsThePreList() {
        var harness = Harness.session(participants: 1)
        harness.perform(.addToPreList(["A", "B", "C"]), by: host)
        #expect(harness.state.preList.map(\.name) == ["A", "B", "C"])
        harness.perform(.removeFromPreList(["B"]), by: host)
        #expect(harness.state.preList.map(\.name) == ["A", "C"])
        harness.refuse(.removeFromPreList(["Z"]), by: .user(host), .notInPreList)
        harness.refuse(.addToPreList(["a"]), by: .user(host), .duplicateRoomName)
        harness.refuse(.addToPreList(["D", "d"]), by: .user(host), .duplicateRoomName)
        harness.refuse(.addToPreList([]), by: .user(host), .roomNameEmpty)
        harness.refuse(.addToPreList([" "]), by: .user(host), .roomNameEmpty)
        harness.refuse(.addToPreList([String(repeating: "r", count: 151)]), by: .user(host), .roomNameTooLong)
        harness.perform(.clearPreList, by: host)
        #expect(harness.state.preList.isEmpty)
    }

    @Test func thePreListIsTheHostsAlone() {
        var harness = Harness.session(participants: 1)
        let events = harness.perform(.addToPreList(["A"]), by: host)
        #expect(harness.state.recipients(of: events[0]) == [host])
    }

    @Test func upToFiftySubsessionsByDefaultConfigurablePerApp() {
        var harness = Harness.session(participants: 0)
        harness.perform(.addToPreList((1...50).map { "Room \($0)" }), by: host)
        harness.refuse(.addToPreList(["One more"]), by: .user(host), .tooManySubsessions)

        var limits = SessionLimits.standard
        limits.maxSubsessions = 3
        var small = Harness.session(participants: 0, limits: limits)
        small.refuse(.addToPreList(["A", "B", "C", "D"]), by: .user(host), .tooManySubsessions)
        small.perform(.addToPreList(["A", "B", "C"]), by: host)
        small.perform(.commit, by: host)
        small.refuse(.createRooms(.standard, count: 1), by: .user(host), .tooManySubsessions)
    }

    /// A count near Int.max is refused like any count too many, never summed past 64 bits
    /// (which stopped the server), in both flows and with rooms made already.
    @Test func aHugeRoomCountIsTooManyRooms() {
        var harness = Harness.session(participants: 1)
        harness.perform(.createRooms(.standard, count: 1), by: host)
        for count in [Int.max, Int.max - 1, Int.max / 2 + 1] {
            harness.refuse(.createRooms(.standard, count: count), by: .user(host), .tooManySubsessions)
            harness.refuse(.createAndInvite(.standard, count: count, forceJoin: false), by: .user(host), .tooManySubsessions)
        }
    }

    @Test func commitReplacesTheCommittedListWithThePreList() {
        var harness = Harness.session(participants: 1)
        harness.refuse(.commit, by: .user(host), .preListEmpty)
        harness.commitRooms(["A", "B"])
        #expect(harness.state.status == .committed)
        #expect(harness.state.rooms.map(\.name) == ["A", "B"])
        let first = harness.state.rooms.map(\.id)
        harness.perform(.clearPreList, by: host)
        harness.perform(.addToPreList(["C"]), by: host)
        harness.perform(.commit, by: host)
        #expect(harness.state.rooms.map(\.name) == ["C"])
        #expect(!first.contains(harness.state.rooms[0].id), "a new commit makes new rooms")
    }

    @Test func withdrawRemovesTheCommittedList() {
        var harness = Harness.session(participants: 1)
        harness.refuse(.withdraw, by: .user(host), .wrongStatus)
        harness.commitRooms(["A"])
        harness.perform(.withdraw, by: host)
        #expect(harness.state.status == .withdrawn)
        #expect(harness.state.rooms.isEmpty)
        harness.refuse(.withdraw, by: .user(host), .wrongStatus)
    }

    @Test func statusFollowsTheSeedLifecycle() {
        var harness = Harness.session(participants: 2)
        #expect(harness.state.status == .none)
        harness.refuse(.start(StartOptions()), by: .user(host), .wrongStatus)
        harness.refuse(.stop(countdownSeconds: 0), by: .user(host), .wrongStatus)
        harness.commitRooms(["A"])
        #expect(harness.state.status == .committed && !harness.state.isStarted)
        harness.perform(.start(StartOptions()), by: host)
        #expect(harness.state.status == .started && harness.state.isStarted)
        harness.refuse(.commit, by: .user(host), .wrongStatus)
        harness.refuse(.withdraw, by: .user(host), .wrongStatus)
        harness.refuse(.start(StartOptions()), by: .user(host), .wrongStatus)
        harness.perform(.stop(countdownSeconds: 10), by: host)
        #expect(harness.state.status == .stopping && harness.state.isStarted)
        harness.refuse(.stop(countdownSeconds: 0), by: .user(host), .wrongStatus)
        harness.tick(after: 10)
        #expect(harness.state.status == .stopped)
        // A stopped list may start again, or be withdrawn.
        harness.perform(.start(StartOptions()), by: host)
        harness.perform(.stop(countdownSeconds: 0), by: host)
        harness.perform(.withdraw, by: host)
        #expect(harness.state.status == .withdrawn)
    }

    @Test func failureStatusesAreWhatARefusedCommitWithdrawStartOrStopReports() {
        #expect(CaucusError.failureStatus(of: .commit) == .commitFailed)
        #expect(CaucusError.failureStatus(of: .withdraw) == .withdrawFailed)
        #expect(CaucusError.failureStatus(of: .start(StartOptions())) == .startFailed)
        #expect(CaucusError.failureStatus(of: .stop(countdownSeconds: nil)) == .stopFailed)
        #expect(CaucusError.failureStatus(of: .clearPreList) == nil)
    }

    @Test func everyStatusChangeReachesEveryUserWithTheFullCommittedList() {
        var harness = Harness.session(participants: 3)
        harness.perform(.addToPreList(["A", "B"]), by: host)
        harness.perform(.preAssign([UserID(2)], to: "A"), by: host)
        let commit = harness.perform(.commit, by: host)
        let everyone = Set(harness.state.users.keys)
        guard case .statusChanged(let committed) = commit.first else {
            Issue.record("commit must change the status")
            return
        }
        #expect(Set(harness.state.recipients(of: commit[0])) == everyone)
        #expect(committed.status == .committed)
        #expect(committed.rooms.map(\.name) == ["A", "B"])
        #expect(committed.rooms[0].assigned == [UserID(2)])
        let start = harness.perform(.start(StartOptions()), by: host)
        guard case .statusChanged(let started) = start.first else {
            Issue.record("start must change the status")
            return
        }
        #expect(Set(harness.state.recipients(of: start[0])) == everyone)
        #expect(started.rooms.map(\.id) == committed.rooms.map(\.id))
        #expect(started.rooms[0].occupants == [UserID(2)], "the list carries each room's users")
    }

    @Test func hostAndManagersStartAndStopAndBroadcastToEveryone() {
        var harness = Harness.session(participants: 3)
        harness.perform(.makeManager(UserID(2)), by: host)
        harness.commitRooms(["A", "B"])
        harness.perform(.start(StartOptions()), by: UserID(2))
        harness.perform(.joinRoom(harness.roomID(named: "A")), by: UserID(3))
        let broadcast = harness.perform(.broadcast("Five minutes left"), by: UserID(2))
        #expect(broadcast == [.broadcast(from: UserID(2), text: "Five minutes left", at: harness.now)])
        #expect(Set(harness.state.recipients(of: broadcast[0])) == Set(harness.state.users.keys))
        harness.refuse(.broadcast(""), by: .user(host), .messageEmpty)
        harness.refuse(.broadcast("x"), by: .user(UserID(3)), .notPermitted)
        harness.perform(.stop(countdownSeconds: 0), by: UserID(2))
        #expect(harness.state.status == .stopped)
        harness.refuse(.broadcast("late"), by: .user(host), .wrongStatus)
    }

    @Test func aParticipantJoinsAStartedSubsessionByChoiceAndReturns() {
        var harness = Harness.session(participants: 2)
        harness.commitRooms(["A", "B"])
        let a = harness.roomID(named: "A")
        let b = harness.roomID(named: "B")
        harness.refuse(.joinRoom(a), by: .user(UserID(2)), .wrongStatus)
        harness.perform(.start(StartOptions()), by: host)
        harness.perform(.joinRoom(a), by: UserID(2))
        #expect(harness.location(of: UserID(2)) == .room(a))
        harness.refuse(.joinRoom(a), by: .user(UserID(2)), .alreadyInRoom)
        harness.refuse(.joinRoom(RoomID(99)), by: .user(UserID(2)), .roomNotFound)
        // From one room straight to another of the same session.
        harness.perform(.joinRoom(b), by: UserID(2))
        #expect(harness.location(of: UserID(2)) == .room(b))
        #expect(harness.state.room(a)?.occupants == [])
        harness.perform(.returnToMain, by: UserID(2))
        #expect(harness.location(of: UserID(2)) == .main)
        harness.refuse(.returnToMain, by: .user(UserID(2)), .notInRoom)
    }

    @Test func usersInASubsessionSeeItsUserListChange() {
        var harness = Harness.session(participants: 3)
        harness.startRooms(["A"])
        let a = harness.roomID(named: "A")
        harness.perform(.joinRoom(a), by: UserID(2))
        let events = harness.perform(.joinRoom(a), by: UserID(3))
        #expect(events == [.usersMoved([UserMove(user: UserID(3), to: .room(a))])])
        #expect(harness.state.recipients(of: events[0]).contains(UserID(2)))
        #expect(harness.state.room(a)?.occupants == [UserID(2), UserID(3)])
    }
}
