import Caucus
import CaucusCore
import Testing

/// Beyond both seeds: the host plans who goes where, moves anyone, and sends one user or
/// everyone back.
@Suite struct MovingTests {
    @Test func theHostPlansMovesAndSendsUsersBack() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", session: "Moves", role: .host)
        let ann = try await server.client("Ann", session: "Moves")
        let ben = try await server.client("Ben", session: "Moves")
        let cy = try await server.client("Cy", session: "Moves")
        let (annID, benID, cyID) = (try ann.id, try ben.id, try cy.id)
        let helper = try #require(host.session.subsessionHelper)
        try await helper.addToPreList("Red", "Blue")
        try await helper.preAssign([annID], to: "Red")
        #expect(try host.snapshot.preList.first?.assigned == [annID])
        try await helper.commit()
        let manager = try #require(host.session.subsessionManager)
        let (red, blue) = (try #require(try host.snapshot.subsession(named: "Red")), try #require(try host.snapshot.subsession(named: "Blue")))
        #expect(red.assignedUsers.map(\.name) == ["Ann"], "the plan's assignments are committed")

        // Changing the plan while committed, then spreading the rest.
        try await manager.assign([benID], to: blue.id)
        try await manager.autoAssign()
        let planned = try host.snapshot.subsessions.flatMap(\.assignedUsers).map(\.id)
        #expect(Set(planned) == [annID, benID, cyID])

        // Start without moving: the planned users are invited, and accept.
        try await manager.start(autoMove: false)
        let invitation = try await ann.log.next("Ann's invitation") { if case .invited(let room, _) = $0 { room.id } else { nil } }
        #expect(invitation == red.id)
        try await ann.session.breakoutRooms.accept(red.id)
        #expect(try ann.snapshot.mySubsession?.id == red.id)

        // Moving anyone, anywhere; then one back, then everyone.
        try await manager.move(benID, to: red.id)
        try await manager.move(cyID, to: blue.id)
        #expect(try host.snapshot.subsession(red.id)?.users.map(\.name) == ["Ann", "Ben"])
        try await manager.returnToMain(benID)
        try await ben.log.next("Ben back") { if case .moved(nil) = $0 { true } else { nil } }
        #expect(try ben.snapshot.location == .main)
        try await manager.returnEveryone()
        #expect(try host.snapshot.users.allSatisfy { $0.location == .main })
        #expect(try host.snapshot.isStarted, "the rooms stay open")
        try await cy.log.next("Cy back") { if case .moved(nil) = $0 { true } else { nil } }
        let refused = await #expect(throws: SessionError.self) { try await manager.returnEveryone() }
        #expect(refused?.code == .nobodyToMove)
        await server.stop()
    }
}
