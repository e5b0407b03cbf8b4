import CaucusCore
import CaucusMedia
import CaucusMediaTestSupport
import Foundation
import Testing
@testable import CaucusServer

/// Where the server sends a user's media, over real UDP: a captured connectivity check replayed
/// from another address moves nothing; the peer's own socket changing port (a NAT rebinding)
/// moves the path with its first fresh packet, and media goes on.
@Suite(.serialized) struct MediaPathSafetyTests {
    /// A valid nominating check of `client`'s, as a capture of its traffic would hold one.
    static func check(of client: MediaTestClient) -> [UInt8] {
        let server = client.peer.server.credentials
        return STUNMessage(type: .bindingRequest, transactionID: .random(), attributes: [
            .username("\(server.ufrag):\(client.peer.localCredentials.ufrag)"), .priority(0x6E00_01FF),
            .iceControlling(tieBreaker: 7), .useCandidate,
        ]).encoded(integrityKey: Array(server.pwd.utf8), fingerprint: true)
    }

    /// Everything that reaches `socket` until it has been quiet for `quiet` × 50 ms (at most 200
    /// reads), unprotected by `client`'s peer.
    static func drain(_ socket: borrowing LoopbackUDPSocket, as client: MediaTestClient, quiet: Int = 10) -> (datagrams: Int, events: [MediaPeerEvent]) {
        var datagrams = 0
        var events: [MediaPeerEvent] = []
        var silent = 0
        for _ in 0..<200 where silent < quiet {
            guard let (datagram, source) = socket.receive() else {
                silent += 1
                continue
            }
            silent = 0
            datagrams += 1
            events += client.peer.receive(datagram, from: source, now: .zero).events
        }
        return (datagrams, events)
    }

    @Test func aReplayedCheckMovesNothingAndARebindingMovesThePath() async throws {
        let server = try await TestServer.start()
        let (publisher, receiver) = try await MediaTestClient.adaPublishingToBo(on: server)
        var sequence: UInt16 = 100
        func sendAndExpectForwarding() throws -> Bool {
            for _ in 0..<100 {
                sequence += 1
                try publisher.sendMedia(sequence...sequence)
                if receiver.next({ event -> Bool? in if case .rtp = event { true } else { nil } }) == true { return true }
            }
            return false
        }
        #expect(try sendAndExpectForwarding(), "media reaches Bo")

        // A check Bo's peer sent (accepted by the server), captured and replayed from elsewhere.
        let captured = Self.check(of: receiver)
        receiver.socket.send(captured, to: receiver.mediaPort)
        _ = Self.drain(receiver.socket, as: receiver, quiet: 4)
        let attacker = try LoopbackUDPSocket(receiveTimeoutMilliseconds: 50)
        attacker.send(captured, to: receiver.mediaPort)
        try publisher.sendMedia((sequence + 1)...(sequence + 5))
        sequence += 5
        let stolen = Self.drain(attacker, as: receiver)
        #expect(stolen.datagrams == 0, "the replay is not answered and no media follows it")
        #expect(try sendAndExpectForwarding(), "Bo still receives")
        let stats = try #require(await server.server.media.stats(for: receiver.key))
        #expect(stats.counters.stunReplayed == 1)

        // Ada's socket now reaches the server from another port: her next packet moves her path,
        // her media still reaches Bo, and what the server sends her (Bo's NACK) goes to the new port.
        let rebound = try LoopbackUDPSocket(receiveTimeoutMilliseconds: 50)
        _ = Self.drain(receiver.socket, as: receiver, quiet: 4)
        sequence += 1
        rebound.send(try publisher.protectedPacket(sequence: sequence), to: publisher.mediaPort)
        let forwarded = receiver.next { event -> RTPPacket? in if case .rtp(let bytes) = event { try? RTPPacket(decoding: bytes) } else { nil } }
        let packet = try #require(forwarded, "media from the new port is forwarded")
        try receiver.send(rtcp: [.genericNACK(RTCPGenericNACK(senderSSRC: 77, mediaSSRC: packet.ssrc, lost: [packet.sequenceNumber]))])
        let atNewPort = Self.drain(rebound, as: publisher)
        let nacks = atNewPort.events.compactMap { event -> RTCPGenericNACK? in
            guard case .rtcp(let bytes) = event, let packets = try? RTCPPacket.decodeCompound(bytes) else { return nil }
            return packets.lazy.compactMap { if case .genericNACK(let nack) = $0 { nack } else { nil } }.first
        }
        #expect(nacks.first?.lostSequenceNumbers == [sequence], "the server's traffic follows Ada to her new port")
        #expect(try #require(await server.server.media.stats(for: publisher.key)).counters.pathMovesByMedia == 1)
        await server.stop()
    }
}
