import CaucusCore
import Testing

/// DESIGN §1, Roles.
@Suite struct RoleRules {
    @Test func aHostTokenMakesTheFirstJoinerHost() {
        let harness = Harness.session(participants: 2)
        #expect(harness.state.hostID == host)
        #expect(harness.state.role(of: host) == .host)
        #expect(harness.state.role(of: UserID(2)) == .participant)
    }

    @Test func theFirstJoinerHostsEvenWithAParticipantToken() {
        var harness = Harness()
        let first = harness.join("Early bird")
        #expect(harness.state.hostID == first)
    }

    @Test func thereIsExactlyOneHostASecondHostTokenJoinsAsManager() {
        var harness = Harness.session(participants: 1)
        let coHost = harness.join("Co-host", claim: .host)
        #expect(harness.state.hostID == host)
        #expect(harness.state.role(of: coHost) == .manager)
    }

    /// One host seat per person: the host arriving from another device with its own identity
    /// takes the seat over (the old seat is removed), never becoming a second, managing self.
    @Test func aHostTokenWithThePresentHostsIdentityTakesTheSeatOver() {
        var harness = Harness()
        let first = harness.perform(
            .join(JoinRequest(sessionName: "Class", userName: "Ms Rivera", claim: .host, userIdentity: "teacher")), by: .server)
        let old = UserID(1)
        #expect(first.contains(.userJoined(harness.state.users[old]!, becomesHost: true)))
        let bo = harness.join("Bo")
        let events = harness.perform(
            .join(JoinRequest(sessionName: "Class", userName: "Ms Rivera (laptop)", claim: .host, userIdentity: "teacher")), by: .server)
        let newcomer = UserID(3)
        #expect(events.first == .userLeft(old, reason: .removed, newHost: nil))
        #expect(harness.state.hostID == newcomer)
        #expect(harness.state.users[old] == nil)
        #expect(harness.state.role(of: bo) == .participant)
        #expect(harness.state.users.values.filter { $0.isManager }.isEmpty)
        // Another identity, or a participant token with the host's identity, is no take-over.
        let coHost = harness.perform(
            .join(JoinRequest(sessionName: "Class", userName: "Head", claim: .host, userIdentity: "head")), by: .server)
        #expect(!coHost.contains { if case .userLeft = $0 { true } else { false } })
        #expect(harness.state.role(of: UserID(4)) == .manager)
        let impostor = harness.perform(
            .join(JoinRequest(sessionName: "Class", userName: "Mal", claim: .participant, userIdentity: "teacher")), by: .server)
        #expect(!impostor.contains { if case .userLeft = $0 { true } else { false } })
        #expect(harness.state.hostID == newcomer)
    }

    /// A take-over keeps the host's own name (the seat it leaves frees it) and bars nobody:
    /// the same person takes the seat over again from a third device.
    @Test func aHostTakingItsSeatOverKeepsItsNameAndIsNotBarred() {
        var harness = Harness()
        _ = harness.perform(.join(JoinRequest(sessionName: "Class", userName: "Ms Rivera", claim: .host, userIdentity: "teacher")), by: .server)
        for device in 2...3 {
            let events = harness.perform(
                .join(JoinRequest(sessionName: "Class", userName: "Ms Rivera", claim: .host, userIdentity: "teacher")), by: .server)
            #expect(events.count == 2, "device \(device): \(events)")
            #expect(harness.state.host?.name == "Ms Rivera")
            #expect(harness.state.users.count == 1)
        }
        #expect(harness.state.removedIdentities.isEmpty)
    }

    @Test func aHostTokenTakesTheRoleBackFromAnInheritedHost() {
        var harness = Harness()
        let early = harness.join("Early bird")
        let teacher = harness.join("Teacher", claim: .host)
        #expect(harness.state.hostID == teacher)
        #expect(harness.state.role(of: early) == .participant)
    }

    @Test func theHostMakesAndRevokesManagers() {
        var harness = Harness.session(participants: 2)
        harness.perform(.makeManager(UserID(2)), by: host)
        #expect(harness.state.role(of: UserID(2)) == .manager)
        harness.refuse(.makeManager(UserID(2)), by: .user(host), .alreadyManager)
        harness.refuse(.makeManager(host), by: .user(host), .targetIsHost)
        harness.refuse(.makeManager(UserID(99)), by: .user(host), .userNotFound)
        harness.perform(.revokeManager(UserID(2)), by: host)
        #expect(harness.state.role(of: UserID(2)) == .participant)
        harness.refuse(.revokeManager(UserID(2)), by: .user(host), .notManager)
    }

    @Test func theHostTransfersHostAndBecomesAParticipant() {
        var harness = Harness.session(participants: 2)
        harness.perform(.makeManager(UserID(3)), by: host)
        let events = harness.perform(.transferHost(to: UserID(3)), by: host)
        #expect(events == [.hostChanged(from: host, to: UserID(3)), Self.hostView(UserID(3))])
        #expect(harness.state.hostID == UserID(3))
        #expect(harness.state.role(of: UserID(3)) == .host)
        #expect(harness.state.role(of: host) == .participant)
        harness.refuse(.transferHost(to: UserID(3)), by: .user(UserID(3)), .targetIsHost)
        harness.refuse(.transferHost(to: UserID(2)), by: .user(host), .notPermitted)
    }

    @Test func theHostRenamesAnyoneAndEveryoneMayRenameThemselves() {
        var harness = Harness.session(participants: 2)
        harness.perform(.rename(UserID(2), to: "Bea"), by: host)
        #expect(harness.state.users[UserID(2)]?.name == "Bea")
        harness.perform(.rename(UserID(3), to: "Cy"), by: UserID(3))
        #expect(harness.state.users[UserID(3)]?.name == "Cy")
        harness.refuse(.rename(UserID(2), to: "Nope"), by: .user(UserID(3)), .notPermitted)
        harness.refuse(.rename(UserID(2), to: " "), by: .user(host), .userNameEmpty)
        harness.refuse(.rename(UserID(2), to: String(repeating: "x", count: 201)), by: .user(host), .userNameTooLong)
    }

    @Test func theHostRemovesUsersButNotThemselves() {
        var harness = Harness.session(participants: 2)
        let events = harness.perform(.remove(UserID(2)), by: host)
        #expect(events == [.userLeft(UserID(2), reason: .removed, newHost: nil)])
        #expect(harness.state.users[UserID(2)] == nil)
        harness.refuse(.remove(host), by: .user(host), .targetIsHost)
        harness.refuse(.remove(UserID(2)), by: .user(host), .userNotFound)
    }

    @Test func aLeavingHostPassesToTheLongestPresentManager() {
        var harness = Harness.session(participants: 3)
        harness.perform(.makeManager(UserID(4)), by: host)
        harness.perform(.makeManager(UserID(3)), by: host)
        let events = harness.perform(.leave(endSession: false), by: host)
        // u3 joined before u4, so it has been present longer.
        #expect(events == [.userLeft(host, reason: .left, newHost: UserID(3)), Self.hostView(UserID(3))])
        #expect(harness.state.hostID == UserID(3))
        #expect(harness.state.role(of: UserID(3)) == .host)
        #expect(harness.state.role(of: UserID(4)) == .manager)
    }

    @Test func aLeavingHostWithoutManagersPassesToTheLongestPresentParticipant() {
        var harness = Harness.session(participants: 3)
        harness.perform(.leave(endSession: false), by: UserID(2))
        harness.perform(.leave(endSession: false), by: host)
        #expect(harness.state.hostID == UserID(3))
    }

    @Test func aHostWhoseSeatExpiresPassesHostOn() {
        var harness = Harness.session(participants: 2)
        harness.perform(.connectionLost(host), by: .server)
        #expect(harness.state.hostID == host, "the seat, and the role, are held during the grace")
        let events = harness.tick(after: SessionLimits.standard.reconnectGraceSeconds)
        #expect(events == [.userLeft(host, reason: .timedOut, newHost: UserID(2)), Self.hostView(UserID(2))])
    }

    /// What a new host of a session without plans, requests or invitations hears.
    static func hostView(_ user: UserID) -> Event {
        .roleView(RoleView(user: user, role: .host, preList: [], helpRequests: [], invitations: []))
    }
}
