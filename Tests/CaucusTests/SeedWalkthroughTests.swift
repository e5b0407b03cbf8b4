import Caucus
import CaucusCore
import Testing

/// The subsession blog's walkthrough, with five SDK clients on a real server: the host plans
/// and commits, a manager starts, participants choose rooms, a help request is answered by
/// joining, a broadcast reaches everyone, stop brings everyone back.
@Suite struct SeedWalkthroughTests {
    @Test func theBlogWalkthroughWithAHostAManagerAndThreeParticipants() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", role: .host)
        let mo = try await server.client("Mo")
        let ann = try await server.client("Ann")
        let ben = try await server.client("Ben")
        let cy = try await server.client("Cy")
        let everyone = [host, mo, ann, ben, cy]
        #expect(try host.snapshot.myRole == .host)
        // A call's results are in the caller's snapshot when it returns; others see them with the event.
        try await eventually("Ann sees everyone") { try ann.snapshot.users.map(\.name) == ["Teacher", "Mo", "Ann", "Ben", "Cy"] }
        #expect(ann.session.remoteUsers.count == 4)
        #expect(ann.session.subsessionManager == nil, "a participant holds no manager handle")

        // The host makes Mo a manager: Mo receives the manager handle.
        try await host.session.userHelper.makeManager(try mo.id)
        try await mo.log.next("Mo's manager handle") { if case .managerHandle(let manager?) = $0 { manager } else { nil } }
        #expect(try mo.snapshot.myRole == .manager)
        #expect(mo.session.subsessionManager != nil)

        // Host: the pre-list, then commit.
        let helper = try #require(host.session.subsessionHelper)
        try await helper.addToPreList("Room A", "Room B", "Room C")
        #expect(try await helper.preList().map(\.name) == ["Room A", "Room B", "Room C"])
        try await helper.removeFromPreList("Room C")
        #expect(try host.snapshot.preList.map(\.name) == ["Room A", "Room B"], "the snapshot is right when the call returns")
        #expect(try mo.snapshot.preList.isEmpty, "the pre-list is the host's alone")
        try await helper.commit()
        #expect(try await helper.committedList().map(\.name) == ["Room A", "Room B"], "right at once, unlike the seed's")
        for client in everyone {
            let (status, names) = try await client.log.next("committed") {
                if case .subsessionStatusChanged(let status, let list) = $0 { (status, list.map(\.name)) } else { nil }
            }
            #expect(status == .committed && names == ["Room A", "Room B"])
            #expect(try client.snapshot.status == .committed)
        }

        // Mo (a manager) starts; participants choose their rooms.
        let manager = try #require(mo.session.subsessionManager)
        try await manager.start()
        #expect(try await manager.isStarted())
        for client in everyone { try await client.log.next("started") { Self.status($0) == .started ? true : nil } }
        let roomA = try #require(try ann.snapshot.subsession(named: "Room A"))
        try await roomA.join()
        #expect(try ann.snapshot.mySubsession?.name == "Room A", "in the room as soon as join returns")
        try await ann.log.next("Ann's participant handle") { if case .participantHandle(let handle?) = $0 { handle } else { nil } }
        try await #require(try ben.snapshot.subsession(named: "Room B")).join()
        try await #require(try cy.snapshot.subsession(named: "Room A")).join()
        try await host.log.next("Room A's users update") {
            if case .subsessionUsersUpdated(let kit) = $0, kit.name == "Room A", kit.users.map(\.name) == ["Ann", "Cy"] { true } else { nil }
        }

        // Ann asks for help; the host answers by joining Room A.
        try await #require(ann.session.subsessionParticipant).requestHelp()
        let request = try await host.log.next("the help request") { if case .helpRequested(let handler) = $0 { handler } else { nil } }
        #expect(request.userName == "Ann" && request.subsessionName == "Room A")
        try await mo.log.next("Mo hears the request too") { if case .helpRequested = $0 { true } else { nil } }
        #expect(try mo.snapshot.helpRequests.map(\.userName) == ["Ann"])
        try await request.join()
        #expect(try host.snapshot.mySubsession?.name == "Room A")
        let result = try await ann.log.next("Ann's help result") { if case .helpRequestResult(let result) = $0 { result } else { nil } }
        #expect(result == .managerJoining)
        try await eventually("the request is answered for Mo") { try mo.snapshot.helpRequests.isEmpty }

        // Chat stays in its room.
        try await ann.session.chat.send("hello A")
        try await ben.session.chat.send("hello B")
        for client in [host, cy, ann] { try await client.log.next("hello A") { Self.chat($0) == "hello A" ? true : nil } }
        try await ben.log.next("hello B") { Self.chat($0) == "hello B" ? true : nil }
        #expect(!ben.log.values(Self.chat).contains("hello A"), "Room B never hears Room A")
        #expect(!mo.log.values(Self.chat).contains("hello A"), "the main session never hears Room A")

        // A broadcast reaches everyone, wherever they are.
        try await manager.broadcast("Five minutes left")
        for client in everyone {
            let (text, sender) = try await client.log.next("the broadcast") {
                if case .broadcast(let text, let sender) = $0 { (text, sender?.name) } else { nil }
            }
            #expect(text == "Five minutes left" && sender == "Mo")
        }

        // Stop: everyone is back in the main session, and every snapshot agrees.
        try await manager.stop(countdownSeconds: 0)
        for client in everyone {
            try await client.log.next("stopped") { Self.status($0) == .stopped ? true : nil }
            let snapshot = try client.snapshot
            #expect(snapshot.status == .stopped)
            #expect(snapshot.users.allSatisfy { $0.location == .main })
            #expect(snapshot.subsessions.map(\.name) == ["Room A", "Room B"])
            #expect(snapshot.subsessions.allSatisfy { $0.users.isEmpty })
            let hostView = try host.snapshot.users
            #expect(snapshot.users == hostView)
        }
        try await ann.log.next("Ann's handle goes") { if case .participantHandle(nil) = $0 { true } else { nil } }
        #expect(ann.log.values { Self.status($0) } == [.committed, .started, .stopped])

        // The host ends the session for everyone.
        try await host.session.leave(endSession: true)
        for client in everyone {
            let reason = try await client.log.next("the end") { if case .sessionLeft(let reason) = $0 { reason } else { nil } }
            #expect(reason == .sessionEnded(.endedByHost))
            #expect(client.session.connectionState == .disconnected)
        }
        await server.stop()
    }

    static func status(_ event: SessionEvent) -> SubsessionStatus? {
        if case .subsessionStatusChanged(let status, _) = event { return status }
        return nil
    }

    static func chat(_ event: SessionEvent) -> String? {
        if case .chatMessage(let message, _) = event { return message.text }
        return nil
    }
}
