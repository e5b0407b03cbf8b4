import Caucus
import CaucusCore
import Testing

/// Renaming rooms and taking people out of the plan, through the SDK against a real server:
/// the host plans, renames and unassigns; a participant hears the committed room's new name
/// and finds itself in the same room under it.
@Suite struct RoomEditTests {
    @Test func theHostRenamesRoomsAndTakesPeopleOutOfThePlan() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", session: "Edits", role: .host)
        let ann = try await server.client("Ann", session: "Edits")
        let ben = try await server.client("Ben", session: "Edits")
        let (annID, benID) = (try ann.id, try ben.id)
        let helper = try #require(host.session.subsessionHelper)

        // The plan: rename a planned room (its people stay), take Ben out of it.
        try await helper.addToPreList("Red", "Blue")
        try await helper.preAssign([annID, benID], to: "Red")
        try await helper.renamePlannedRoom("red", to: "Crimson")
        try await helper.unassign([benID])
        #expect(try host.snapshot.preList == [PlannedRoom(name: "Crimson", assigned: [annID]), PlannedRoom(name: "Blue")])
        let duplicate = await #expect(throws: SessionError.self) { try await helper.renamePlannedRoom("Crimson", to: "blue") }
        #expect(duplicate?.code == .duplicateRoomName)
        let notPlanned = await #expect(throws: SessionError.self) { try await helper.unassign([benID]) }
        #expect(notPlanned?.code == .notAssigned)
        // A participant has no planning helper to rename with (the core's RoomEditTests show
        // the server refuses the command itself with notPermitted).
        #expect(ann.session.subsessionHelper == nil)

        // Commit and start: Ann goes to Crimson, Ben stays in the main session.
        try await helper.commit()
        let manager = try #require(host.session.subsessionManager)
        try await manager.start()
        let crimson = try #require(try host.snapshot.subsession(named: "Crimson"))
        try await ann.log.next("Ann in Crimson") { if case .moved(let room?) = $0, room.id == crimson.id { true } else { nil } }
        #expect(try ben.snapshot.location == .main)

        // Renaming the open room: everyone hears it; Ann is still in it, under its new name.
        try await manager.renameSubsession(crimson.id, to: "Green")
        for client in [ann, ben] {
            let renamed = try await client.log.next("the rename") { if case .subsessionRenamed(let room) = $0 { room } else { nil } }
            #expect(renamed.id == crimson.id && renamed.name == "Green")
        }
        #expect(try ann.snapshot.mySubsession?.name == "Green")
        #expect(try ann.snapshot.mySubsession?.users.map(\.name) == ["Ann"])
        #expect(try ben.snapshot.subsessions.map(\.name) == ["Green", "Blue"])
        // The pre-list is the host's own and keeps its names.
        #expect(try host.snapshot.preList.map(\.name) == ["Crimson", "Blue"])
        let taken = await #expect(throws: SessionError.self) { try await manager.renameSubsession(crimson.id, to: "BLUE") }
        #expect(taken?.code == .duplicateRoomName)
        await server.stop()
    }
}
