import Caucus
import CaucusCore
import Testing

/// Broadcast voice and listen-in through the SDK and a real server: the manager's calls, the
/// events every user's app hears, and everyone's snapshot.
@Suite struct VoiceBroadcastAndListenInTests {
    @Test func everyoneSeesWhoBroadcastsAndWhoListensIn() async throws {
        let server = try await TestServer.start()
        let host = try await server.client("Teacher", role: .host)
        let ann = try await server.client("Ann")
        let manager = try #require(host.session.subsessionManager)

        try await manager.startVoiceBroadcast()
        let (broadcaster, active) = try await ann.log.next("the broadcast") {
            if case .voiceBroadcastChanged(let user, let active) = $0 { (user.name, active) } else { nil }
        }
        #expect(broadcaster == "Teacher" && active)
        #expect(try ann.snapshot.voiceBroadcaster?.name == "Teacher")
        let busy = await #expect(throws: SessionError.self) { try await manager.startVoiceBroadcast() }
        #expect(busy?.code == .voiceBroadcastBusy)
        try await manager.stopVoiceBroadcast()
        _ = try await ann.log.next("the broadcast's end") {
            if case .voiceBroadcastChanged(_, false) = $0 { true } else { nil }
        }
        #expect(try ann.snapshot.voiceBroadcaster == nil)

        let room = try #require(try await host.session.breakoutRooms.create(count: 1).first)
        try await manager.assign([try ann.id], to: room.id)
        try await manager.listenIn(to: room.id)
        let (listener, heard) = try await ann.log.next("the listen-in") {
            if case .listeningChanged(let user, let kit, true) = $0 { (user.name, kit.id) } else { nil }
        }
        #expect(listener == "Teacher" && heard == room.id)
        #expect(try ann.snapshot.listeners(of: room.id).map(\.name) == ["Teacher"])
        // A newcomer's snapshot shows it too.
        let ben = try await server.client("Ben")
        #expect(try ben.snapshot.listeners(of: room.id).map(\.name) == ["Teacher"])
        try await manager.stopListening()
        _ = try await ann.log.next("the listen-in's end") {
            if case .listeningChanged(_, _, false) = $0 { true } else { nil }
        }
        #expect(try ann.snapshot.listeners(of: room.id).isEmpty)
        await server.stop()
    }
}
