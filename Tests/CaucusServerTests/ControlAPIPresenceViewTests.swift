import Foundation
import Testing

/// The control API's session view shows who broadcasts voice, who listens in where, and the
/// pending invitations, as every snapshot does.
@Suite(.serialized) struct ControlAPIPresenceViewTests {
    @Test func theSessionViewShowsTheBroadcasterTheListenersAndTheInvitations() async throws {
        let server = try await TestServer.start()
        let teacher = try await server.joined("Teacher", role: .host)
        let ann = try await server.joined("Ann")
        let ben = try await server.joined("Ben")
        let cat = try await server.joined("Cat")
        let api = ControlAPI(server)
        let id = try await api.sessionID(named: "Class")
        let (teacherID, annID, benID, catID) = (try #require(await teacher.user), try #require(await ann.user), try #require(await ben.user), try #require(await cat.user))
        try await api.perform(id, "makeManager", ["user": benID])
        try await api.perform(id, "createRooms", ["count": 2])
        let rooms = try await api.session(id).object("breakout").objects("rooms")
        let (red, blue) = (try #require(rooms.first?.int("id")), try #require(rooms.last?.int("id")))
        try await api.perform(id, "assign", ["users": [annID], "room": red])

        let quiet = try await api.session(id)
        #expect(!quiet.keys.contains("voiceBroadcaster"), "nobody broadcasts: \(quiet)")
        #expect(quiet.objects("listeners").isEmpty && quiet.objects("invitations").isEmpty)

        try await teacher.request("startVoiceBroadcast")
        try await ben.request("listenIn", ["room": red])
        try await api.perform(id, "invite", ["users": [catID], "room": blue])
        let view = try await api.session(id)
        #expect(view.int("voiceBroadcaster") == teacherID)
        #expect(view.objects("listeners").map { [$0.int("user"), $0.int("room")] } == [[benID, red]])
        #expect(view.objects("invitations").map { [$0.int("user"), $0.int("room")] } == [[catID, blue]])
        await server.stop()
    }
}
