import Caucus
import CaucusCore
import Testing

/// The EnableX create-and-invite flow through the SDK: create and invite, accept and reject,
/// invite with force-join, pause and mute the parent, disconnect, clear all, destroy all.
@Suite struct BreakoutRoomFlowTests {
    @Test func createAndInviteThenForceJoinRejectPauseMuteClearAndDestroy() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Moderator", session: "Workshop", role: .host)
        var participants: [Client] = []
        for name in ["P1", "P2", "P3", "P4"] { participants.append(try await server.client(name, session: "Workshop")) }
        let everyone = [host] + participants
        let rooms = host.session.breakoutRooms

        // Two rooms of two; the four participants are invited, balanced.
        let definition = RoomDefinition(capacity: 2, audio: true, video: false, screenShare: true, canvas: false)
        let created = try await rooms.createAndInvite(definition, count: 2)
        #expect(created.map(\.name) == ["Room 1", "Room 2"])
        #expect(created.allSatisfy { $0.definition == definition && $0.users.isEmpty })
        #expect(try host.snapshot.status == .started, "created rooms are open at once")
        var invitedTo: [RoomID] = []
        for participant in participants {
            let room = try await participant.log.next("an invitation") { if case .invited(let room, _) = $0 { room.id } else { nil } }
            #expect(try participant.snapshot.invitation?.id == room)
            invitedTo.append(room)
        }
        #expect(Dictionary(grouping: invitedTo, by: { $0 }).values.map(\.count).sorted() == [2, 2], "balanced")
        let invitedUsers = try await host.log.next("the moderator hears the invitations") {
            if case .usersInvited(let users, _, _) = $0 { users.count } else { nil }
        }
        #expect(invitedUsers == 2)

        // P1 accepts; P2 rejects, and the moderator is told.
        let (p1, p2, p3) = (participants[0], participants[1], participants[2])
        try await p1.session.breakoutRooms.accept(invitedTo[0])
        #expect(try p1.snapshot.mySubsession?.id == invitedTo[0])
        #expect(try p1.snapshot.invitation == nil)
        try await p2.session.breakoutRooms.reject(invitedTo[1])
        #expect(try p2.snapshot.invitation == nil)
        let (rejecter, rejected) = try await host.log.next("the rejection") {
            if case .invitationRejected(let user, let room) = $0 { (user.name, room.id) } else { nil }
        }
        #expect(rejecter == "P2" && rejected == invitedTo[1])

        // The moderator forces P2 in after all.
        try await rooms.invite([try p2.id], to: invitedTo[1], forceJoin: true)
        let movedTo = try await p2.log.next("P2 moved") { if case .moved(let room?) = $0 { room.id } else { nil } }
        #expect(movedTo == invitedTo[1])
        #expect(try host.snapshot.subsession(invitedTo[1])?.users.contains { $0.name == "P2" } == true)

        // A plain create adds an open room.
        let extra = try await rooms.create(count: 1)
        #expect(extra.map(\.name) == ["Room 3"])
        try await eventually("P3 sees the new room") { try p3.snapshot.subsessions.count == 3 }

        // Parent control while breakouts run.
        try await rooms.pauseParent()
        try await rooms.muteParent(audio: true, video: false)
        for client in everyone {
            try await client.log.next("muted") { if case .parentControlChanged(let parent) = $0, parent.audioMuted { true } else { nil } }
            #expect(try client.snapshot.parent == ParentControl(paused: true, audioMuted: true, videoMuted: false))
        }
        let again = await #expect(throws: SessionError.self) { try await rooms.pauseParent() }
        #expect(again?.code == .parentAlreadyPaused)

        // P1 disconnects back to the parent; clear all returns everyone, the rooms stay.
        try await p1.session.breakoutRooms.disconnect()
        #expect(try p1.snapshot.location == .main)
        try await rooms.clearAll()
        for client in everyone {
            try await eventually("everyone back") { try client.snapshot.users.allSatisfy { $0.location == .main } }
            #expect(try client.snapshot.subsessions.count == 3)
        }

        // Destroy all: no rooms, the parent resumed and unmuted.
        try await rooms.destroyAll()
        for client in everyone {
            let status = try await client.log.next("destroyed") {
                if case .subsessionStatusChanged(let status, let list) = $0, list.isEmpty { status } else { nil }
            }
            #expect(status == SubsessionStatus.none, "no room exists, and nothing was withdrawn")
            #expect(try client.snapshot.subsessions.isEmpty)
            #expect(try client.snapshot.parent == .open)
        }

        // Lecture mode refuses every breakout operation with EnableX's 5067.
        try await host.session.setMode(.lecture)
        let refused = await #expect(throws: SessionError.self) { try await rooms.create(count: 1) }
        #expect(refused?.code == .lectureMode)
        #expect(refused?.serverError?.code == 5067)
        try await p1.log.next("lecture mode") { if case .modeChanged(.lecture) = $0 { true } else { nil } }
        #expect(try p1.snapshot.mode == .lecture)
        await server.stop()
    }
}
