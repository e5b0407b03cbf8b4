import CaucusCore
import Testing

/// A role that grows brings its view (issue 10, Build 4): the user alone hears what its new
/// role sees, decided with the change.
@Suite struct RoleViewRules {
    /// Host u1, participants u2–u4; rooms A and B open, u3 in A asking for help, u4 invited to B.
    static func breakout() -> Harness {
        var harness = Harness.session(participants: 3)
        harness.startRooms(["A", "B"])
        harness.perform(.addToPreList(["Later"]), by: host)
        harness.perform(.joinRoom(harness.roomID(named: "A")), by: UserID(3))
        harness.perform(.requestHelp, by: UserID(3))
        harness.perform(.invite([UserID(4)], to: harness.roomID(named: "B"), forceJoin: false), by: host)
        return harness
    }

    @Test func aNewManagerHearsThePendingHelpRequestsAndInvitations() {
        var harness = Self.breakout()
        let events = harness.perform(.makeManager(UserID(2)), by: host)
        guard case .roleView(let view) = events.last else {
            Issue.record("no role view after \(events)")
            return
        }
        #expect(view.user == UserID(2) && view.role == .manager)
        #expect(view.helpRequests == harness.state.helpRequests && view.helpRequests?.count == 1)
        #expect(view.invitations == [PendingInvitation(user: UserID(4), room: harness.roomID(named: "B"))])
        #expect(view.preList == nil)
        #expect(harness.state.recipients(of: events.last!) == [UserID(2)])
    }

    @Test func aNewHostHearsThePreListToo() {
        var harness = Self.breakout()
        let events = harness.perform(.leave(endSession: false), by: host)
        let views = events.compactMap { if case .roleView(let view) = $0 { view } else { nil } }
        #expect(views.count == 1)
        let newHost = harness.state.hostID
        #expect(views.first?.user == newHost && views.first?.role == .host)
        #expect(views.first?.preList == harness.state.preList && harness.state.preList.map(\.name).contains("Later"))
        #expect(views.first?.helpRequests == harness.state.helpRequests)
    }

    @Test func aRoleThatShrinksOrStaysBringsNoView() {
        var harness = Self.breakout()
        harness.perform(.makeManager(UserID(2)), by: host)
        let revoked = harness.perform(.revokeManager(UserID(2)), by: host)
        #expect(!revoked.contains { if case .roleView = $0 { true } else { false } })
        let chat = harness.perform(.chat("hello", to: .room), by: UserID(2))
        #expect(!chat.contains { if case .roleView = $0 { true } else { false } })
    }

    @Test func aClientPromotedMidSessionSeesWhatItsRoleSees() {
        var harness = Self.breakout()
        var client = SessionState(restoring: SessionSnapshot(state: harness.state, viewer: UserID(2), seq: harness.log.count))
        #expect(client == harness.state.visible(to: UserID(2)))
        #expect(client.helpRequests.isEmpty)
        for event in harness.perform(.makeManager(UserID(2)), by: host) where harness.state.recipients(of: event).contains(UserID(2)) {
            client.apply(event)
        }
        #expect(client.helpRequests.count == 1)
        #expect(client.visible(to: UserID(2)) == harness.state.visible(to: UserID(2)))
    }
}
