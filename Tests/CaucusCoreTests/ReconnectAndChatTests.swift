import CaucusCore
import Foundation
import Testing

/// DESIGN §1: reconnect keeps your seat; chat is scoped to the sender's room.
@Suite struct ReconnectRules {
    @Test func aDroppedUserKeepsItsSeatUntilTheGraceDeadline() {
        var harness = Harness.session(participants: 2)
        harness.startRooms(["A"], options: StartOptions(autoAssign: true))
        let a = harness.roomID(named: "A")
        let drop = harness.perform(.connectionLost(UserID(2)), by: .server)
        let deadline = harness.now.adding(seconds: 30)
        #expect(drop == [.userReconnecting(UserID(2), until: deadline)])
        #expect(harness.state.nextDeadline == deadline)
        harness.refuse(.connectionLost(UserID(2)), by: .server, .alreadyReconnecting)
        harness.advance(seconds: 29)
        harness.perform(.tick, by: .server)
        harness.perform(.resume(UserID(2)), by: .server)
        #expect(harness.location(of: UserID(2)) == .room(a), "back in the same room")
        #expect(harness.state.users[UserID(2)]?.presence == .connected)
        harness.refuse(.resume(UserID(2)), by: .server, .notReconnecting)
        #expect(harness.state.nextDeadline == nil)
    }

    @Test func afterTheGraceTheUserLeavesForEveryone() {
        var harness = Harness.session(participants: 2)
        harness.perform(.connectionLost(UserID(3)), by: .server)
        let events = harness.tick(after: 30)
        #expect(events == [.userLeft(UserID(3), reason: .timedOut, newHost: nil)])
        harness.refuse(.resume(UserID(3)), by: .server, .userNotFound)
    }

    @Test func theGraceIsConfigurable() {
        var limits = SessionLimits.standard
        limits.reconnectGraceSeconds = 5
        var harness = Harness.session(participants: 1, limits: limits)
        harness.perform(.connectionLost(UserID(2)), by: .server)
        #expect(harness.tick(after: 5) == [.userLeft(UserID(2), reason: .timedOut, newHost: nil)])
    }

    @Test func onlyTheServerReportsConnections() {
        let harness = Harness.session(participants: 1)
        harness.refuse(.connectionLost(UserID(2)), by: .user(host), .notPermitted)
        harness.refuse(.resume(UserID(2)), by: .user(UserID(2)), .notPermitted)
        harness.refuse(.tick, by: .user(host), .notPermitted)
    }
}

@Suite struct ChatRules {
    @Test func chatIsScopedToTheSendersRoom() {
        var harness = Harness.session(participants: 4)
        harness.startRooms(["A", "B"])
        let (a, b) = (harness.roomID(named: "A"), harness.roomID(named: "B"))
        harness.perform(.assign([UserID(2), UserID(3)], to: a), by: host)
        harness.perform(.assign([UserID(4)], to: b), by: host)
        let inA = harness.perform(.chat("hello A", to: .room), by: UserID(2))
        guard case .chatMessage(let message) = inA.first else {
            Issue.record("expected a chat message")
            return
        }
        #expect(message.scope == .room(.room(a)))
        #expect(harness.state.recipients(of: inA[0]) == [UserID(2), UserID(3)])
        let inMain = harness.perform(.chat("hello main", to: .room), by: host)
        #expect(Set(harness.state.recipients(of: inMain[0])) == Set([host, UserID(5)]))
    }

    @Test func directMessagesReachOnlySenderAndRecipient() {
        var harness = Harness.session(participants: 3)
        let events = harness.perform(.chat("psst", to: .user(UserID(3))), by: UserID(2))
        #expect(harness.state.recipients(of: events[0]) == [UserID(2), UserID(3)])
        harness.refuse(.chat("psst", to: .user(UserID(9))), by: .user(UserID(2)), .userNotFound)
    }

    @Test func messagesAreNumberedAndBounded() {
        var harness = Harness.session(participants: 1)
        harness.perform(.chat("one", to: .room), by: host)
        let second = harness.perform(.chat("two", to: .room), by: UserID(2))
        guard case .chatMessage(let message) = second.first else { return }
        #expect(message.id == MessageID(2))
        harness.refuse(.chat("", to: .room), by: .user(host), .messageEmpty)
        harness.refuse(.chat(String(repeating: "x", count: 4001), to: .room), by: .user(host), .messageTooLong)
        harness.refuse(.chat("hi", to: .room), by: .server, .userRequired)
    }
}

@Suite struct EventLog {
    @Test func eventsSurviveAJSONRoundTripAndReplayToTheSameState() throws {
        var harness = Harness.session(participants: 6)
        harness.perform(.makeManager(UserID(2)), by: host)
        harness.perform(.addToPreList(["A", "B"]), by: host)
        harness.perform(.preAssign([UserID(3)], to: "A"), by: host)
        harness.perform(.commit, by: host)
        harness.perform(.start(StartOptions(durationSeconds: 600, autoAssign: true)), by: host)
        harness.perform(.chat("hi", to: .room), by: UserID(3))
        harness.perform(.requestHelp, by: UserID(3))
        harness.perform(.pauseParent, by: host)
        harness.perform(.connectionLost(UserID(4)), by: .server)
        let data = try JSONEncoder().encode(harness.log)
        let decoded = try JSONDecoder().decode([Event].self, from: data)
        #expect(decoded == harness.log)
        #expect(SessionState(replaying: decoded) == harness.state)
    }

    @Test func errorCodesAreUniqueAndNamed() {
        let codes = CaucusError.Code.known
        #expect(Set(codes.map(\.rawValue)).count == codes.count)
        #expect(Set(codes.map(\.name)).count == codes.count)
        #expect(CaucusError.Code.needPassword.name == "needPassword")
    }
}
