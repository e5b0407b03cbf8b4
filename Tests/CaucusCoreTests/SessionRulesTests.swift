import CaucusCore
import Testing

/// DESIGN §1, Sessions.
@Suite struct SessionRules {
    @Test func sessionNamesAreUniquePerAppComparedCaseInsensitively() {
        var directory = SessionDirectory<Int>()
        directory.register(1, app: "appA", named: "Math 101")
        #expect(directory.session(app: "appA", named: "math 101") == 1)
        #expect(directory.session(app: "appA", named: "MATH 101") == 1)
        #expect(directory.session(app: "appA", named: "Math 102") == nil)

        var harness = Harness.session(participants: 0)
        let late = harness.join("Late", session: "CLASS")
        #expect(harness.state.users[late] != nil)
        harness.refuse(.join(JoinRequest(sessionName: "Other", userName: "X")), by: .server, .sessionNameMismatch)
    }

    @Test func twoAppsMayUseTheSameNameAndGetDifferentSessions() {
        var directory = SessionDirectory<Int>()
        directory.register(1, app: "appA", named: "Standup")
        #expect(directory.session(app: "appB", named: "Standup") == nil)
        directory.register(2, app: "appB", named: "standup")
        #expect(directory.session(app: "appA", named: "Standup") == 1)
        #expect(directory.session(app: "appB", named: "Standup") == 2)
        #expect(directory.count == 2)
    }

    @Test func joinCreatesTheSessionWhenNoneIsActiveElseJoinsIt() {
        var harness = Harness()
        let first = harness.perform(.join(JoinRequest(sessionName: "Class", userName: "Ada", claim: .host)), by: .server)
        guard case .sessionStarted(let started) = first.first else {
            Issue.record("first join must start the session")
            return
        }
        #expect(started.name == "Class")
        #expect(harness.state.isLive)
        let second = harness.perform(.join(JoinRequest(sessionName: "Class", userName: "Bob")), by: .server)
        #expect(second.count == 1)
        guard case .userJoined(let bob, false) = second.first else {
            Issue.record("second join must only add a user")
            return
        }
        #expect(harness.state.users.count == 2)
        #expect(harness.state.users[bob.id]?.name == "Bob")
    }

    @Test func nothingButAJoinReachesASessionBeforeItStarts() {
        let harness = Harness()
        harness.refuse(.tick, by: .server, .sessionNotStarted)
        harness.refuse(.commit, by: .user(UserID(1)), .sessionNotStarted)
        harness.refuse(.join(JoinRequest(sessionName: "Class", userName: "A")), by: .user(UserID(1)), .notPermitted)
    }

    @Test func namesBeyondTheirLimitsAreRefusedNeverTruncated() {
        var harness = Harness()
        let limits = SessionLimits.standard
        func join(_ request: JoinRequest, _ code: CaucusError.Code) {
            harness.refuse(.join(request), by: .server, code)
        }
        let long = { (count: Int) in String(repeating: "a", count: count) }
        join(JoinRequest(sessionName: long(limits.maxSessionNameLength + 1), userName: "A"), .sessionNameTooLong)
        join(JoinRequest(sessionName: "  ", userName: "A"), .sessionNameEmpty)
        join(JoinRequest(sessionName: "Class", userName: long(limits.maxUserNameLength + 1)), .userNameTooLong)
        join(JoinRequest(sessionName: "Class", userName: ""), .userNameEmpty)
        join(JoinRequest(sessionName: "Class", userName: "A", password: long(limits.maxPasswordLength + 1)), .passwordTooLong)
        join(JoinRequest(sessionName: "Class", userName: "A", userIdentity: long(36)), .userIdentityTooLong)
        join(JoinRequest(sessionName: "Class", userName: "A", sessionKey: long(37)), .sessionKeyTooLong)
        // Exactly at the limits is fine, and the names are kept whole.
        let events = harness.perform(
            .join(
                JoinRequest(
                    sessionName: long(150), userName: long(200), claim: .host, password: long(10), userIdentity: long(35),
                    sessionKey: long(36))), by: .server)
        #expect(events.count == 2)
        #expect(harness.state.name.count == 150)
        #expect(harness.state.users.values.first?.name.count == 200)
    }

    /// A token that names a run of the session (its session_key) joins that run only: one of
    /// another run (ended: a class link's token kept past its class) is refused and changes
    /// nothing; one that names no run, or a session started without one, joins as before.
    @Test func aTokenOfAnotherRunOfTheSessionIsRefused() {
        var harness = Harness()
        harness.perform(.join(JoinRequest(sessionName: "Class", userName: "Ada", claim: .host, sessionKey: "run-b")), by: .server)
        let before = harness.state
        for claim in [RoleClaim.participant, .host] {
            harness.refuse(.join(JoinRequest(sessionName: "Class", userName: "Old", claim: claim, sessionKey: "run-a")), by: .server, .sessionEnded)
        }
        #expect(harness.state == before)
        harness.perform(.join(JoinRequest(sessionName: "Class", userName: "Bo", sessionKey: "run-b")), by: .server)
        harness.perform(.join(JoinRequest(sessionName: "Class", userName: "Cy")), by: .server)

        var unkeyed = Harness()
        unkeyed.perform(.join(JoinRequest(sessionName: "Class", userName: "Ada", claim: .host)), by: .server)
        unkeyed.perform(.join(JoinRequest(sessionName: "Class", userName: "Bo", sessionKey: "run-a")), by: .server)
    }

    @Test func limitsAreConfigurablePerApp() {
        var limits = SessionLimits.standard
        limits.maxUserNameLength = 5
        limits.maxUsersPerSession = 2
        var harness = Harness(limits: limits)
        harness.refuse(.join(JoinRequest(sessionName: "Class", userName: "Abcdef", claim: .host)), by: .server, .userNameTooLong)
        harness.join("Ada", claim: .host)
        harness.join("Bob")
        harness.refuse(.join(JoinRequest(sessionName: "Class", userName: "Cy")), by: .server, .sessionFull)
    }

    @Test func aPrivateSessionNeedsItsPasswordAndAJoinMayBeRetried() {
        var harness = Harness.session(participants: 0, password: "s3cret")
        #expect(harness.state.password == "s3cret")
        let request = { (password: String?) in JoinRequest(sessionName: "Class", userName: "Bob", password: password) }
        harness.refuse(.join(request(nil)), by: .server, .needPassword)
        harness.refuse(.join(request("")), by: .server, .needPassword)
        harness.refuse(.join(request("wrong")), by: .server, .passwordWrong)
        // The same connection retries with the right password.
        harness.perform(.join(request("s3cret")), by: .server)
        #expect(harness.state.users.count == 2)
    }

    @Test func aPublicSessionIgnoresAGivenPassword() {
        var harness = Harness.session(participants: 0)
        harness.join("Bob", password: "anything")
        #expect(harness.state.users.count == 2)
        #expect(harness.state.password == nil)
    }

    @Test func joinAndLeaveEventsReachEveryone() {
        var harness = Harness.session(participants: 2)
        let events = harness.perform(.join(JoinRequest(sessionName: "Class", userName: "Dee")), by: .server)
        let dee = UserID(4)
        #expect(Set(harness.state.recipients(of: events[0])) == Set([host, UserID(2), UserID(3), dee]))
        let left = harness.perform(.leave(endSession: false), by: dee)
        #expect(left == [.userLeft(dee, reason: .left, newHost: nil)])
        #expect(Set(harness.state.recipients(of: left[0])) == Set([host, UserID(2), UserID(3)]))
    }

    @Test func theHostMayEndTheSessionForEveryone() {
        var harness = Harness.session(participants: 2)
        let events = harness.perform(.leave(endSession: true), by: host)
        #expect(events == [.sessionEnded(.endedByHost)])
        #expect(harness.state.lifecycle == .ended(.endedByHost))
        #expect(harness.state.users.isEmpty)
        harness.refuse(.join(JoinRequest(sessionName: "Class", userName: "Late")), by: .server, .sessionEnded)
    }

    @Test func aNonHostAskingToEndTheSessionOnlyLeaves() {
        var harness = Harness.session(participants: 2)
        let events = harness.perform(.leave(endSession: true), by: UserID(2))
        #expect(events == [.userLeft(UserID(2), reason: .left, newHost: nil)])
        #expect(harness.state.isLive)
    }

    @Test func theServerMayEndASession() {
        var harness = Harness.session(participants: 1)
        #expect(harness.perform(.endSession, by: .server) == [.sessionEnded(.endedByServer)])
    }

    @Test func aSessionEndsWhenItsLastUserLeaves() {
        var harness = Harness.session(participants: 1)
        harness.perform(.leave(endSession: false), by: UserID(2))
        let events = harness.perform(.leave(endSession: false), by: host)
        #expect(events == [.userLeft(host, reason: .left, newHost: nil), .sessionEnded(.everyoneLeft)])
        #expect(harness.state.lifecycle == .ended(.everyoneLeft))
    }

    @Test func aSessionWithOnlyReconnectingUsersEndsAfterTheGrace() {
        var harness = Harness.session(participants: 1)
        harness.perform(.connectionLost(UserID(2)), by: .server)
        harness.perform(.leave(endSession: false), by: host)
        #expect(harness.state.isLive, "a reconnecting user holds the session open")
        #expect(harness.tick(after: SessionLimits.standard.reconnectGraceSeconds - 1).isEmpty)
        let events = harness.tick(after: 1)
        #expect(events == [.userLeft(UserID(2), reason: .timedOut, newHost: nil), .sessionEnded(.everyoneLeft)])
    }

    @Test func aNameIsReusableOnceItsSessionEnded() {
        var directory = SessionDirectory<Int>()
        directory.register(1, app: "app", named: "Class")
        var harness = Harness.session(participants: 0)
        harness.perform(.leave(endSession: true), by: host)
        directory.end(app: "app", named: "CLASS")
        #expect(directory.session(app: "app", named: "Class") == nil)
        // A fresh state machine takes the name.
        var next = Harness()
        next.join("New host", claim: .host)
        #expect(next.state.isLive && next.state.name == "Class")
    }

    @Test func endedSessionsRefuseEverything() {
        var harness = Harness.session(participants: 1)
        harness.perform(.endSession, by: .server)
        harness.refuse(.tick, by: .server, .sessionEnded)
        harness.refuse(.chat("hi", to: .room), by: UserID(2), .sessionEnded)
    }
}
