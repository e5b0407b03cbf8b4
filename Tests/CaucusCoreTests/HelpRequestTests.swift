import CaucusCore
import Testing

/// DESIGN §1: help requests and their four results.
@Suite struct HelpRequestRules {
    /// Host u1, manager u2, participants u3 and u4 (u3 in room A).
    static func breakout() -> (Harness, RoomID) {
        var harness = Harness.session(participants: 3)
        harness.perform(.makeManager(UserID(2)), by: host)
        harness.startRooms(["A", "B"])
        let a = harness.roomID(named: "A")
        harness.perform(.joinRoom(a), by: UserID(3))
        return (harness, a)
    }

    @Test func managersGetEachHelpRequestWithUserAndSubsessionName() {
        var (harness, a) = Self.breakout()
        let events = harness.perform(.requestHelp, by: UserID(3))
        guard case .helpRequested(let request) = events.first else {
            Issue.record("expected a help request, got \(events)")
            return
        }
        #expect(request.requesterName == "User 3")
        #expect(request.roomName == "A" && request.room == a)
        #expect(Set(harness.state.recipients(of: events[0])) == Set([host, UserID(2)]))
        harness.refuse(.requestHelp, by: .user(UserID(3)), .helpAlreadyRequested)
        harness.refuse(.requestHelp, by: .user(UserID(4)), .notInRoom)
    }

    @Test func anIgnoredRequestTellsTheRequesterIgnored() {
        var (harness, _) = Self.breakout()
        harness.perform(.requestHelp, by: UserID(3))
        let id = harness.state.helpRequests[0].id
        let events = harness.perform(.answerHelp(id, .ignore), by: UserID(2))
        #expect(events == [.helpAnswered(id, requester: UserID(3), result: .ignored, by: UserID(2))])
        #expect(harness.state.recipients(of: events[0]).contains(UserID(3)))
        #expect(!harness.state.recipients(of: events[0]).contains(UserID(4)))
        harness.refuse(.answerHelp(id, .ignore), by: .user(host), .helpRequestNotFound)
    }

    @Test func aManagerJoiningTellsTheRequesterManagerJoiningAndMovesTheManager() {
        var (harness, a) = Self.breakout()
        harness.perform(.requestHelp, by: UserID(3))
        let id = harness.state.helpRequests[0].id
        let events = harness.perform(.answerHelp(id, .join), by: UserID(2))
        #expect(events.last == .helpAnswered(id, requester: UserID(3), result: .managerJoining, by: UserID(2)))
        #expect(harness.location(of: UserID(2)) == .room(a))
        #expect(harness.state.helpRequests.isEmpty)
    }

    @Test func aManagerAlreadyThereAnswersManagerAlreadyInSubsession() {
        var (harness, a) = Self.breakout()
        harness.perform(.requestHelp, by: UserID(3))
        harness.perform(.joinRoom(a), by: host)
        let id = harness.state.helpRequests[0].id
        let events = harness.perform(.answerHelp(id, .join), by: host)
        #expect(events == [.helpAnswered(id, requester: UserID(3), result: .managerAlreadyInSubsession, by: host)])
    }

    @Test func withNoManagerFreeInTheMainSessionTheRequesterHearsBusy() {
        var (harness, _) = Self.breakout()
        let b = harness.roomID(named: "B")
        harness.perform(.joinRoom(b), by: host)
        harness.perform(.joinRoom(b), by: UserID(2))
        let events = harness.perform(.requestHelp, by: UserID(3))
        guard case .helpAnswered(_, UserID(3), .busy, nil) = events.first else {
            Issue.record("expected busy, got \(events)")
            return
        }
        #expect(harness.state.helpRequests.isEmpty, "a busy request may be asked again")
        harness.perform(.returnToMain, by: UserID(2))
        harness.perform(.requestHelp, by: UserID(3))
        #expect(harness.state.helpRequests.count == 1)
    }

    @Test func requestsLapseWhenTheRequesterLeavesTheRoomOrTheBreakoutStops() {
        var (harness, _) = Self.breakout()
        harness.perform(.requestHelp, by: UserID(3))
        harness.perform(.returnToMain, by: UserID(3))
        #expect(harness.state.helpRequests.isEmpty)
        harness.perform(.joinRoom(harness.roomID(named: "A")), by: UserID(3))
        harness.perform(.requestHelp, by: UserID(3))
        harness.perform(.stop(countdownSeconds: 0), by: host)
        #expect(harness.state.helpRequests.isEmpty)
    }
}
