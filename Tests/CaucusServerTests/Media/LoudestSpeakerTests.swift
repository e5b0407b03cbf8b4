import CaucusCore
import CaucusMedia
import Foundation
import Testing
@testable import CaucusServer

/// Issue 23, item 3, through `caucus serve`: two publishers over real UDP and SRTP whose audio
/// packets carry RFC 6464 levels; the listener's one audio slot goes to the louder one (before,
/// levels were never read and the slot stayed with the first to publish), the slot map frame's
/// `activeSpeakers` says so, and the slot carries the louder one's packets.
@Suite(.serialized) struct LoudestSpeakerTests {
    static let levelID: UInt8 = 1

    /// An Opus packet with a one-byte-header audio level element, its payload filled with `marker`.
    static func packet(ssrc: UInt32, sequence: UInt16, level: UInt8, marker: UInt8) -> [UInt8] {
        var packet: [UInt8] = [0x90, SDPOffer.opusPayloadType, UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
        packet += withUnsafeBytes(of: (UInt32(sequence) &* 960).bigEndian, Array.init)
        packet += withUnsafeBytes(of: ssrc.bigEndian, Array.init)
        packet += [0xBE, 0xDE, 0x00, 0x01, levelID << 4, 0x80 | level, 0, 0]
        return packet + [UInt8](repeating: marker, count: 40)
    }

    /// Also with routing slices of one user: the new order then reaches the users slice by
    /// slice (`evaluateSpeakers(now:slice:)`), the media loop going on to the next by itself.
    @Test(arguments: [ServerConfiguration().mediaRoutingSlice, 1])
    func theLouderPublisherTakesTheListenersAudioSlot(routingSlice: Int) async throws {
        let server = try await TestServer.start(configure: { $0.mediaRoutingSlice = routingSlice })
        _ = try await server.joined("Ada", role: .host)
        let bo = try await server.joined("Bo")
        let cy = try await server.joined("Cy")
        let dee = try await server.joined("Dee")
        let (cyID, deeID) = (try #require(await cy.user), try #require(await dee.user))
        let listener = try await MediaTestClient.connect(bo, on: server, sections: [.receiving(.audio)])
        let quiet = try await MediaTestClient.connect(
            cy, on: server, sections: [.init(kind: .audio, direction: .sendonly, sendingSSRC: 0xC1)], audioLevelID: Self.levelID)
        let loud = try await MediaTestClient.connect(
            dee, on: server, sections: [.init(kind: .audio, direction: .sendonly, sendingSSRC: 0xD1)], audioLevelID: Self.levelID)
        try await cy.request("publish", ["media": ["audio"]])
        try await dee.request("publish", ["media": ["audio"]])
        // Nobody heard yet: the slot goes to the first publisher.
        _ = try await within("Bo's slot filled by Cy") {
            try await MediaRoutingOrderTests.events(before: { MediaRoutingOrderTests.slots(in: $0)?.first?["user"] as? Int == cyID }, on: bo)
        }

        // Cy speaks at −50 dBov, Dee at −10 dBov: 40 dB louder, for two seconds of 20 ms packets.
        for sequence in UInt16(1)...100 {
            for client in [listener, quiet, loud] { client.keepConsent() }
            let (cyPacket, deePacket) = (
                Self.packet(ssrc: 0xC1, sequence: sequence, level: 50, marker: 0xC1),
                Self.packet(ssrc: 0xD1, sequence: sequence, level: 10, marker: 0xD1)
            )
            quiet.socket.send(try #require(quiet.peer.protect(rtp: cyPacket)).bytes, to: quiet.mediaPort)
            loud.socket.send(try #require(loud.peer.protect(rtp: deePacket)).bytes, to: loud.mediaPort)
            try await Task.sleep(for: .milliseconds(20))
        }

        let speakers = try await within("Bo's slot going to Dee") { () -> [Int]? in
            var speakers: [Int]?
            while let frame = try await bo.nextFrame() {
                let media = frame["media"] as? JSON
                if let listed = media?["activeSpeakers"] as? [Int] { speakers = listed }
                if MediaRoutingOrderTests.slots(in: frame)?.first?["user"] as? Int == deeID { return speakers }
            }
            throw TestFailure("the connection closed first")
        }
        #expect(speakers?.first == deeID, "the speakers the map follows put Dee first: \(String(describing: speakers))")
        #expect(Set(speakers ?? []) == [cyID, deeID])
        // Everyone there is told the new order with its own slot map (slice after slice, when
        // a slice is one user).
        for (name, client) in [("Cy", cy), ("Dee", dee)] {
            _ = try await within("\(name) told that Dee speaks loudest") {
                try await MediaRoutingOrderTests.events(
                    before: { (($0["media"] as? JSON)?["activeSpeakers"] as? [Int])?.first == deeID }, on: client)
            }
        }

        // What the slot carries now is Dee's.
        for sequence in UInt16(101)...110 {
            let deePacket = Self.packet(ssrc: 0xD1, sequence: sequence, level: 10, marker: 0xD1)
            loud.socket.send(try #require(loud.peer.protect(rtp: deePacket)).bytes, to: loud.mediaPort)
        }
        let carried = listener.next { event -> [UInt8]? in
            guard case .rtp(let packet) = event, packet.last == 0xD1 else { return nil }
            return packet
        }
        #expect(carried != nil, "no packet of Dee's reached Bo's slot")
        await server.stop()
    }

    /// The voice broadcast keeps the listener's one audio slot while a louder publisher of the
    /// listener's own location speaks 40 dB above it (issue 23, item 4): the session pins it.
    @Test func theVoiceBroadcastKeepsTheListenersSlotWhoeverIsLouder() async throws {
        let server = try await TestServer.start()
        let ada = try await server.joined("Ada", role: .host)
        let bo = try await server.joined("Bo")
        let dee = try await server.joined("Dee")
        let adaID = try #require(await ada.user)
        let listener = try await MediaTestClient.connect(bo, on: server, sections: [.receiving(.audio)])
        let broadcaster = try await MediaTestClient.connect(
            ada, on: server, sections: [.init(kind: .audio, direction: .sendonly, sendingSSRC: 0xA1)], audioLevelID: Self.levelID)
        let loud = try await MediaTestClient.connect(
            dee, on: server, sections: [.init(kind: .audio, direction: .sendonly, sendingSSRC: 0xD1)], audioLevelID: Self.levelID)
        try await ada.request("publish", ["media": ["audio"]])
        try await ada.request("startVoiceBroadcast")
        try await dee.request("publish", ["media": ["audio"]])
        _ = try await within("Bo's slot filled by Ada's broadcast") {
            try await MediaRoutingOrderTests.events(before: { MediaRoutingOrderTests.slots(in: $0)?.first?["user"] as? Int == adaID }, on: bo)
        }

        // Ada broadcasts at −50 dBov, Dee speaks at −10 dBov, for two seconds of 20 ms packets;
        // then one last packet each, Dee's first.
        for sequence in UInt16(1)...101 {
            for client in [listener, broadcaster, loud] { client.keepConsent() }
            let last = sequence == 101
            let dees = Self.packet(ssrc: 0xD1, sequence: sequence, level: 10, marker: last ? 0xD2 : 0xD1)
            loud.socket.send(try #require(loud.peer.protect(rtp: dees)).bytes, to: loud.mediaPort)
            let adas = Self.packet(ssrc: 0xA1, sequence: sequence, level: 50, marker: last ? 0xA2 : 0xA1)
            broadcaster.socket.send(try #require(broadcaster.peer.protect(rtp: adas)).bytes, to: broadcaster.mediaPort)
            try await Task.sleep(for: .milliseconds(20))
        }
        var markers = Set<UInt8>()
        let reachedTheEnd = listener.next { event -> Bool? in
            guard case .rtp(let packet) = event, let marker = packet.last else { return nil }
            markers.insert(marker)
            return marker == 0xA2 ? true : nil
        }
        #expect(reachedTheEnd == true, "Ada's last packet never reached Bo: \(markers)")
        #expect(!markers.contains(0xD1) && !markers.contains(0xD2), "Dee took the broadcast's slot")
        await server.stop()
    }
}
