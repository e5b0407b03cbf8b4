import CaucusCore
import Foundation
import Testing

/// Issue 38: people are who they say. A name is one present user's; a user the host removed
/// does not come back with the same identity.
@Suite struct PeopleRules {
    private func join(
        _ name: String, identity: String? = nil, claim: RoleClaim = .participant
    ) -> Command {
        .join(JoinRequest(sessionName: "Class", userName: name, claim: claim, userIdentity: identity))
    }

    @Test func aSecondUserWithTheSameNameIsRefusedHoweverItIsWritten() {
        var harness = Harness()
        harness.join("Ms Rivera", claim: .host)
        harness.join("Mal")
        for copy in ["Ms Rivera", "ms rivera", "MS RIVERA", "  Ms   Rivera ", "Ms\u{00A0}Rivera", "Ms Rivera\u{200B}", "M\u{200D}s Rivera"] {
            harness.refuse(join(copy), by: .server, .userNameTaken)
            harness.refuse(join(copy, claim: .host), by: .server, .userNameTaken)
        }
        // A different name is a different name, even one that says more.
        harness.join("Ms Rivera (teacher)")
        harness.join("Ms Riviera")
        #expect(harness.state.users.count == 4)
    }

    /// A name may not end with a role's mark: a participant named "Ms Rivera (Host)" reads as
    /// the host wherever the console lists names. Refused at the join and at a rename, however
    /// written; a mark elsewhere, or a longer word, is a name like any other.
    @Test func aNameEndingWithARolesMarkIsRefusedAtTheJoinAndAtARename() throws {
        var harness = Harness()
        harness.join("Ms Rivera", claim: .host)
        for name in ["Ms Rivera (Host)", "ms rivera (host)", "Ms Rivera ( HOST )", "Bo (Manager)", "Bo (co-host)", "Bo (Co Host)", "Bo (you)", "Bo(you)\u{200B}"] {
            harness.refuse(join(name), by: .server, .userNameImitatesRole)
            harness.refuse(join(name, claim: .host), by: .server, .userNameImitatesRole)
        }
        #expect(harness.state.users.count == 1)
        for name in ["(Host) fan club", "Ms Rivera (hostess)", "Bo (host team)", "Bo Host", "Bo (yours)"] {
            harness.join(name)
        }
        let bo = try #require(harness.state.users.values.first { $0.name == "Bo Host" }).id
        harness.refuse(.rename(bo, to: "Bo (Manager)"), by: .user(bo), .userNameImitatesRole)
        harness.refuse(.rename(bo, to: "Bo (Host)"), by: .user(host), .userNameImitatesRole)
        #expect(harness.state.users[bo]?.name == "Bo Host")
    }

    @Test func aReconnectingUsersNameStaysTakenAndALeaversIsFree() {
        var harness = Harness.session(participants: 1)
        harness.perform(.connectionLost(UserID(2)), by: .server)
        harness.refuse(join("User 2"), by: .server, .userNameTaken)
        harness.perform(.leave(endSession: false), by: UserID(2))
        harness.join("User 2")
    }

    @Test func aRenameToSomeoneElsesNameIsRefusedButOnesOwnInAnotherCaseIsNot() {
        var harness = Harness.session(participants: 2)
        harness.refuse(.rename(UserID(2), to: "user 3"), by: .user(UserID(2)), .userNameTaken)
        harness.refuse(.rename(UserID(3), to: "HOST"), by: .user(host), .userNameTaken)
        harness.perform(.rename(UserID(2), to: "USER 2"), by: UserID(2))
        #expect(harness.state.users[UserID(2)]?.name == "USER 2")
        harness.perform(.rename(UserID(2), to: "Bea"), by: UserID(2))
        // The old name is free again.
        harness.perform(.rename(UserID(3), to: "user 2"), by: host)
    }

    @Test func aRemovedIdentityIsRefusedForTheSessionsLifeAndOthersAreNot() {
        var harness = Harness()
        harness.join("Teacher", claim: .host)
        harness.perform(join("Mal", identity: "console-seat-1"), by: .server)
        harness.perform(join("Bo", identity: "console-seat-2"), by: .server)
        harness.perform(.remove(UserID(2)), by: host)
        #expect(harness.state.removedIdentities == ["console-seat-1"])
        // Back with the same identity, under any name or role: refused.
        harness.refuse(join("Mal", identity: "console-seat-1"), by: .server, .removedFromSession)
        harness.refuse(join("Someone else", identity: "console-seat-1"), by: .server, .removedFromSession)
        harness.refuse(join("Mal", identity: "console-seat-1", claim: .host), by: .server, .removedFromSession)
        // Another identity, or none, is another person.
        harness.perform(join("Mal", identity: "console-seat-3"), by: .server)
        // Leaving bars nothing; neither does a removal of a user without an identity.
        harness.perform(.leave(endSession: false), by: UserID(3))
        harness.perform(join("Bo", identity: "console-seat-2"), by: .server)
        harness.join("Cy")
        let cy = harness.state.users.values.first { $0.name == "Cy" }!.id
        harness.perform(.remove(cy), by: host)
        harness.join("Cy")
        #expect(harness.state.removedIdentities == ["console-seat-1"])
    }

    @Test func theRemovedIdentitiesSurviveTheStoredStateAndGoWithTheSession() throws {
        var harness = Harness()
        harness.join("Teacher", claim: .host)
        harness.perform(join("Mal", identity: "console-seat-1"), by: .server)
        harness.perform(.remove(UserID(2)), by: host)
        let stored = try JSONDecoder().decode(SessionState.self, from: JSONEncoder().encode(harness.state))
        #expect(stored == harness.state)
        #expect(stored.removedIdentities == ["console-seat-1"])
        // A state stored before the field bars nobody.
        var json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(harness.state)) as! [String: Any]
        json.removeValue(forKey: "removedIdentities")
        let older = try JSONDecoder().decode(SessionState.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(older.removedIdentities.isEmpty)
        // The session's end forgets them: the same name tomorrow is a new session.
        harness.perform(.leave(endSession: true), by: host)
        #expect(harness.state.removedIdentities.isEmpty)
    }

    @Test func theNameKeyReadsNamesAsPeopleSeeThem() {
        #expect(UserNameKey.key("  Ms \t Rivera  ") == "ms rivera")
        #expect(UserNameKey.key("Ms\u{2060}Rivera") == "msrivera")
        #expect(!UserNameKey.matches("José", "Jose"))
        #expect(UserNameKey.matches("ÉLODIE", "élodie"))
    }
}
