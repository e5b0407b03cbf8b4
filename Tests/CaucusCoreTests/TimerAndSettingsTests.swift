import CaucusCore
import Testing

/// DESIGN §1, beyond the seeds: timers and per-session settings.
@Suite struct TimerRules {
    @Test func aTimerWarnsBeforeTheEndThenStopsWithTheCountdown() {
        var settings = SessionSettings.standard
        settings.timerWarningSeconds = [60, 10]
        settings.countdownSeconds = 15
        var harness = Harness.session(participants: 2, settings: settings)
        harness.startRooms(["A"], options: StartOptions(durationSeconds: 300, autoAssign: true))
        #expect(harness.state.timer?.endsAt == harness.now.adding(seconds: 300))
        #expect(harness.state.nextDeadline == harness.now.adding(seconds: 240))
        #expect(harness.tick(after: 239).isEmpty)
        #expect(harness.tick(after: 1) == [.timerWarning(secondsRemaining: 60)])
        #expect(harness.tick(after: 49).isEmpty)
        #expect(harness.tick(after: 1) == [.timerWarning(secondsRemaining: 10)])
        let end = harness.tick(after: 10)
        #expect(harness.state.status == .stopping, "\(end)")
        #expect(harness.state.users.values.contains { $0.location != .main }, "the countdown gives time to finish")
        harness.tick(after: 15)
        #expect(harness.state.status == .stopped)
        #expect(harness.state.users.values.allSatisfy { $0.location == .main })
    }

    @Test func aLateTickCatchesUpInOrder() {
        var harness = Harness.session(participants: 2, settings: SessionSettings(countdownSeconds: 0, timerWarningSeconds: [30]))
        harness.startRooms(["A"], options: StartOptions(durationSeconds: 60, autoAssign: true))
        let events = harness.tick(after: 120)
        #expect(events.first == .timerWarning(secondsRemaining: 30))
        #expect(harness.state.status == .stopped)
    }

    @Test func warningsLongerThanTheDurationAreSkipped() {
        var harness = Harness.session(participants: 1)
        harness.startRooms(["A"], options: StartOptions(durationSeconds: 30))
        #expect(harness.state.timer?.pendingWarnings == [])
    }

    @Test func managersExtendARunningTimer() {
        var harness = Harness.session(participants: 1)
        harness.refuse(.extendTimer(seconds: 60), by: .user(host), .noTimer)
        harness.startRooms(["A"], options: StartOptions(durationSeconds: 120))
        let ends = harness.state.timer!.endsAt
        harness.perform(.extendTimer(seconds: 60), by: host)
        #expect(harness.state.timer?.endsAt == ends.adding(seconds: 60))
        harness.refuse(.extendTimer(seconds: 0), by: .user(host), .invalidDuration)
        harness.refuse(.extendTimer(seconds: 60), by: .user(UserID(2)), .notPermitted)
    }

    @Test func aTimerAfterItsWarningIsExtendedWarnsAgain() {
        var harness = Harness.session(participants: 1)
        harness.startRooms(["A"], options: StartOptions(durationSeconds: 120))
        harness.tick(after: 60)
        #expect(harness.state.timer?.pendingWarnings == [])
        harness.perform(.extendTimer(seconds: 120), by: host)
        #expect(harness.state.timer?.pendingWarnings == [60])
    }

    @Test func startRefusesBadDurationsAndStopBadCountdowns() {
        var harness = Harness.session(participants: 1)
        harness.commitRooms(["A"])
        harness.refuse(.start(StartOptions(durationSeconds: 0)), by: .user(host), .invalidDuration)
        harness.refuse(.start(StartOptions(durationSeconds: 86_401)), by: .user(host), .invalidDuration)
        harness.perform(.start(StartOptions()), by: host)
        harness.refuse(.stop(countdownSeconds: -1), by: .user(host), .invalidDuration)
        harness.refuse(.stop(countdownSeconds: 3_601), by: .user(host), .invalidDuration)
    }

    @Test func stopWithACountdownReturnsEveryoneWhenItEnds() {
        var harness = Harness.session(participants: 3)
        harness.startRooms(["A"], options: StartOptions(autoAssign: true))
        harness.perform(.stop(countdownSeconds: 30), by: host)
        #expect(harness.state.nextDeadline == harness.now.adding(seconds: 30))
        harness.refuse(.joinRoom(harness.roomID(named: "A")), by: .user(host), .wrongStatus)
        let events = harness.tick(after: 30)
        #expect(events.count == 1, "one event returns everyone")
        #expect(harness.state.users.values.allSatisfy { $0.location == .main })
    }
}

@Suite struct SettingsRules {
    @Test func selfSelectCanBeTurnedOff() {
        var harness = Harness.session(participants: 2)
        harness.perform(.updateSettings(SessionSettings(selfSelectAllowed: false)), by: host)
        harness.startRooms(["A"])
        harness.refuse(.joinRoom(harness.roomID(named: "A")), by: .user(UserID(2)), .selfSelectDisabled)
        harness.perform(.joinRoom(harness.roomID(named: "A")), by: host)
    }

    @Test func returnToMainCanBeTurnedOff() {
        var harness = Harness.session(participants: 2)
        harness.perform(.updateSettings(SessionSettings(returnToMainAllowed: false)), by: host)
        harness.startRooms(["A"], options: StartOptions(autoAssign: true))
        harness.refuse(.returnToMain, by: .user(UserID(2)), .returnDisabled)
        harness.perform(.returnUser(UserID(2)), by: host)
    }

    @Test func withoutAutoMoveAssignedUsersAreInvitedOnStart() {
        var harness = Harness.session(participants: 2)
        harness.perform(.updateSettings(SessionSettings(autoMoveOnStart: false)), by: host)
        harness.perform(.addToPreList(["A"]), by: host)
        harness.perform(.preAssign([UserID(2)], to: "A"), by: host)
        harness.perform(.commit, by: host)
        let events = harness.perform(.start(StartOptions()), by: host)
        let a = harness.roomID(named: "A")
        #expect(events.last == .invited(Invitation(users: [UserID(2)], room: a, by: host)))
        #expect(harness.location(of: UserID(2)) == .main)
        harness.perform(.acceptInvitation(a), by: UserID(2))
        #expect(harness.location(of: UserID(2)) == .room(a))
    }

    @Test func theStartOptionOverridesAutoMove() {
        var harness = Harness.session(participants: 2)
        harness.startRooms(["A"], options: StartOptions(autoAssign: true, autoMove: false))
        #expect(harness.state.users.values.allSatisfy { $0.location == .main })
        #expect(harness.state.invitations.count == 2)
    }

    @Test func whoMayCreateRoomsIsASetting() {
        var harness = Harness.session(participants: 2)
        harness.perform(.makeManager(UserID(2)), by: host)
        harness.perform(.createRooms(RoomDefinition(), count: 1), by: UserID(2))
        harness.refuse(.createRooms(RoomDefinition(), count: 1), by: .user(UserID(3)), .notPermitted)
        harness.perform(.updateSettings(SessionSettings(roomCreators: .host)), by: host)
        harness.refuse(.createRooms(RoomDefinition(), count: 1), by: .user(UserID(2)), .notPermitted)
        harness.perform(.updateSettings(SessionSettings(roomCreators: .everyone)), by: host)
        harness.perform(.createRooms(RoomDefinition(), count: 1), by: UserID(3))
    }

    @Test func theCountdownIsASetting() {
        var harness = Harness.session(participants: 1)
        harness.perform(.updateSettings(SessionSettings(countdownSeconds: 5)), by: host)
        harness.startRooms(["A"])
        harness.perform(.stop(countdownSeconds: nil), by: host)
        #expect(harness.state.phase == .stopping(until: harness.now.adding(seconds: 5)))
    }

    @Test func badSettingsAreRefused() {
        let harness = Harness.session(participants: 1)
        harness.refuse(.updateSettings(SessionSettings(countdownSeconds: -1)), by: .user(host), .invalidSettings)
        harness.refuse(.updateSettings(SessionSettings(countdownSeconds: 3_601)), by: .user(host), .invalidSettings)
        harness.refuse(.updateSettings(SessionSettings(timerWarningSeconds: [0])), by: .user(host), .invalidSettings)
        harness.refuse(.updateSettings(SessionSettings(timerWarningSeconds: Array(1...11))), by: .user(host), .invalidSettings)
        harness.refuse(.setMode(.group), by: .user(host), .invalidSettings)
        harness.refuse(.updateSettings(.standard), by: .user(UserID(2)), .notPermitted)
        harness.refuse(.updateSettings(.standard), by: .user(host), .invalidSettings)
    }
}
