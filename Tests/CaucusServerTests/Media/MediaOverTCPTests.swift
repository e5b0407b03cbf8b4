import CaucusCore
import CaucusMedia
import CaucusMediaTestSupport
import Foundation
import Testing
@testable import CaucusServer

/// ICE over TCP (RFC 6544, RFC 4571 framing) through `caucus serve`: a user who cannot use
/// UDP connects to the answer's passive TCP candidate and receives a UDP publisher's media,
/// keyed and forwarded like any peer's.
@Suite(.serialized) struct MediaOverTCPTests {
    @Test func aPeerWithoutUDPConnectsOverTCPAndReceivesMedia() async throws {
        let server = try await TestServer.start()
        let ada = try await server.joined("Ada", role: .host)
        let bo = try await server.joined("Bo")
        let publisher = try await MediaTestClient.connect(ada, on: server)
        try await ada.request("publish", ["media": ["audio"]])

        let certificate = try DTLSCertificate.generate(commonName: "client")
        let credentials = ICECredentials.random()
        let offer = SDPOffer(sections: [.receiving(.audio)], credentials: credentials, fingerprint: certificate.fingerprint)
        let answerText = try #require(try await bo.request("mediaOffer", ["sdp": offer.text])["sdp"] as? String)
        #expect(answerText.contains(" tcp 1526726655 127.0.0.1 "), "the answer has a passive TCP candidate")
        let answer = try SessionDescription(parsing: answerText)
        let endpoint = try MediaServerEndpoint(answer: answer)
        let tcpAddress = try #require(endpoint.tcpAddress)
        let slot = try #require(answer.media.first?.ssrcs.keys.first)
        let peer = try MediaClientPeer(localCredentials: credentials, certificate: certificate, server: endpoint, tieBreaker: 9)

        var stream = try LoopbackTCPStream(connectingTo: tcpAddress, receiveTimeoutMilliseconds: 50)
        let started = ContinuousClock.now
        func now() -> Duration { ContinuousClock.now - started }
        // The client-role stack addresses the server's UDP candidate; over TCP the same packets
        // go on the connection.
        peer.start(now: now()).datagrams.forEach { stream.send($0.bytes) }
        var received: RTPPacket?
        var sequence: UInt16 = 0
        while received == nil, now() < .seconds(20) {
            if let deadline = peer.nextDeadline, deadline <= now() {
                peer.handleTimeout(now: now()).datagrams.forEach { stream.send($0.bytes) }
            }
            if peer.isConnected {
                sequence += 1
                try publisher.sendMedia(sequence...sequence)
            }
            guard let packet = stream.receive() else { continue }
            let output = peer.receive(packet, from: endpoint.address, now: now())
            output.datagrams.forEach { stream.send($0.bytes) }
            for case .rtp(let bytes) in output.events { received = try? RTPPacket(decoding: bytes) }
        }
        #expect(peer.isConnected, "ICE and DTLS over TCP: \(peer.state)")
        let packet = try #require(received, "Ada's audio reaches Bo over TCP")
        #expect(packet.ssrc == slot)
        #expect(packet.payload == [UInt8](repeating: 0x55, count: 60))
        await server.stop()
    }

    /// `--media-tcp-port off`: no TCP candidate.
    @Test func theTCPCandidateCanBeTurnedOff() async throws {
        let server = try await TestServer.start(configure: { $0.mediaTCPPort = nil })
        let bo = try await server.joined("Bo")
        let offer = SDPOffer(sections: [.receiving(.audio)], credentials: .random(), fingerprint: try DTLSCertificate.generate(commonName: "c").fingerprint)
        let answerText = try #require(try await bo.request("mediaOffer", ["sdp": offer.text])["sdp"] as? String)
        #expect(!answerText.contains(" tcp "))
        #expect(answerText.contains(" udp "))
        await server.stop()
    }
}
