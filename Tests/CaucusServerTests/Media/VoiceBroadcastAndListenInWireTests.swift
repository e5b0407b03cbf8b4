import CaucusCore
import CaucusMedia
import Foundation
import Testing
@testable import CaucusServer

/// Broadcast voice and listen-in through `caucus serve`: the requests, the events everyone
/// hears, the snapshot, and the media itself over real UDP with the client-role stack.
@Suite(.serialized) struct VoiceBroadcastAndListenInWireTests {
    /// The first RTP packet on the receiver's slots, the publisher sending one packet every
    /// few reads until one arrives (or 200 have gone unanswered).
    static func firstForwarded(from publisher: MediaTestClient, to receiver: MediaTestClient) throws -> [UInt8]? {
        var sequence: UInt16 = 2_000
        for _ in 0..<200 {
            sequence += 1
            try publisher.sendMedia(sequence...sequence)
            if let packet = receiver.next(reads: 4, { event -> [UInt8]? in if case .rtp(let packet) = event { packet } else { nil } }) {
                return packet
            }
        }
        return nil
    }

    /// The users each slot map the client received names, in order.
    static func slotUsers(_ client: TestClient) async -> [[Int]] {
        await client.keptEvents().compactMap { frame in
            ((frame["media"] as? JSON)?["slots"] as? [JSON]).map { $0.compactMap { $0["user"] as? Int } }
        }
    }

    @Test func theBroadcastersVoiceReachesARoomWithoutAudioAndEveryoneIsTold() async throws {
        let server = try await TestServer.start()
        let ada = try await server.joined("Ada", role: .host)
        let bo = try await server.joined("Bo")
        let cy = try await server.joined("Cy")
        // A room that forwards no audio of its own.
        try await ada.request("createRooms", ["count": 1, "definition": ["audio": false]])
        try await ada.request("assign", ["users": [2], "room": 1])
        let publisher = try await MediaTestClient.connect(ada, on: server)
        let receiver = try await MediaTestClient.connect(bo, on: server, sections: [.receiving(.audio)])
        try await ada.request("publish", ["media": ["audio"]])

        try await ada.request("startVoiceBroadcast")
        for client in [ada, bo, cy] {
            let heard = try await within("voiceBroadcast") { try await client.event("voiceBroadcast") }
            let event = try #require(heard["event"] as? JSON)
            #expect(event["user"] as? Int == 1 && event["active"] as? Bool == true, "\(event)")
        }
        let snapshot = try await cy.request("getSnapshot")["snapshot"] as? JSON
        #expect(snapshot?["voiceBroadcaster"] as? Int == 1)
        #expect(try await ada.refused("startVoiceBroadcast") == 7002)
        #expect(try await cy.refused("startVoiceBroadcast") == 3001)

        let packet = try #require(try Self.firstForwarded(from: publisher, to: receiver), "Ada's voice never reached Bo's room")
        #expect(try RTPPacket(decoding: packet).ssrc == receiver.slotSSRCs["0"])
        // The slot map travels on the WebSocket after the events that explain it: the first
        // forwarded packet may come before it.
        try await within("Bo's slot map naming the broadcaster") {
            while await Self.slotUsers(bo).last != [1] { _ = try await bo.request("ping") }
        }
        let maps = await Self.slotUsers(bo)
        #expect(maps.last == [1], "Bo's slot map names the broadcaster: \(maps)")

        try await ada.request("stopVoiceBroadcast")
        let ended = try await within("the broadcast's end") { try await bo.event("voiceBroadcast") }
        #expect((ended["event"] as? JSON)?["active"] as? Bool == false)
        #expect(try await ada.refused("stopVoiceBroadcast") == 7003)
        await server.stop()
    }

    @Test func aListenerReceivesTheRoomAndTheRoomNeverReceivesTheListener() async throws {
        let server = try await TestServer.start()
        let ada = try await server.joined("Ada", role: .host)
        let bo = try await server.joined("Bo")
        let cy = try await server.joined("Cy")
        try await ada.request("createRooms", ["count": 1])
        try await ada.request("assign", ["users": [2, 3], "room": 1])
        // Ada publishes audio (never sent here: her offer's own SSRC differs from Cy's); Bo has
        // two audio slots, so anyone eligible for him would show in his slot map.
        let listener = try await MediaTestClient.connect(
            ada, on: server, sections: [.init(kind: .audio, direction: .sendrecv, sendingSSRC: 0xCAFE_00AD)])
        let room = try await MediaTestClient.connect(bo, on: server, sections: [.receiving(.audio), .receiving(.audio)])
        let speaker = try await MediaTestClient.connect(cy, on: server)
        _ = room
        try await ada.request("publish", ["media": ["audio"]])

        #expect(try await bo.refused("listenIn", ["room": 1]) == 3001)
        #expect(try await ada.refused("listenIn", ["room": 9]) == 4008)
        try await ada.request("listenIn", ["room": 1])
        for client in [ada, bo, cy] {
            let told = try await within("listening") { try await client.event("listening") }
            let event = try #require(told["event"] as? JSON)
            #expect(event["user"] as? Int == 1 && event["room"] as? Int == 1 && event["active"] as? Bool == true, "\(event)")
        }
        let snapshot = try await bo.request("getSnapshot")["snapshot"] as? JSON
        #expect((snapshot?["listeners"] as? [JSON])?.first?["user"] as? Int == 1)
        #expect(try await ada.refused("listenIn", ["room": 1]) == 7004)

        try await cy.request("publish", ["media": ["audio"]])
        let packet = try #require(try Self.firstForwarded(from: speaker, to: listener), "Cy's voice never reached the listener")
        #expect(try RTPPacket(decoding: packet).ssrc == listener.slotSSRCs["0"])
        // Bo's maps, up to the one that follows Cy's publication, never name Ada.
        try await within("Bo's slot map naming Cy") {
            while await !Self.slotUsers(bo).contains(where: { $0.contains(3) }) { _ = try await bo.request("ping") }
        }
        let maps = await Self.slotUsers(bo)
        #expect(maps.allSatisfy { !$0.contains(1) }, "\(maps)")

        // A move ends it, and everyone is told.
        try await ada.request("joinRoom", ["room": 1])
        let ended = try await within("the listen-in's end") {
            try await bo.event("listening") { (($0["event"] as? JSON)?["active"] as? Bool) == false }
        }
        #expect((ended["event"] as? JSON)?["user"] as? Int == 1)
        #expect(try await ada.refused("stopListening") == 7005)
        await server.stop()
    }
}
