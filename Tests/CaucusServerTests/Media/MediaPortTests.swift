import CaucusCore
import CaucusMedia
@testable import CaucusServer
import Foundation
import Testing

/// The client-role stack of CaucusMedia (`ICEControllingAgent`, a DTLS client) over a real UDP
/// socket against the server's media port, after a `mediaOffer` on the WebSocket.
@Suite(.serialized) struct MediaPortTests {
    @Test func theClientRoleStackConnectsAndItsRTPIsDecrypted() async throws {
        let server = try await TestServer.start()
        let ada = try await server.joined("Ada", role: .host)
        let key = try await MediaSignallingTests.key(of: ada, on: server)
        let certificate = try DTLSCertificate.generate(commonName: "client")
        let credentials = ICECredentials.random()
        let offer = MediaSignallingTests.offer
            .replacingOccurrences(of: "a=ice-ufrag:abcd", with: "a=ice-ufrag:\(credentials.ufrag)")
            .replacingOccurrences(of: "a=ice-pwd:0123456789012345678901", with: "a=ice-pwd:\(credentials.pwd)")
            .replacing(#/a=fingerprint:sha-256 \S+/#, with: "a=fingerprint:" + certificate.fingerprint.sdpValue)
        let answerText = try #require(try await ada.request("mediaOffer", ["sdp": offer])["sdp"] as? String)
        let answer = try SessionDescription(parsing: answerText)
        let section = try #require(answer.media.first)
        let serverCredentials = ICECredentials(ufrag: try #require(section.iceUfrag), pwd: try #require(section.icePwd))
        let fingerprint = try #require(section.fingerprints.first)
        let serverFingerprint = try #require(DTLSFingerprint(sdpValue: "\(fingerprint.algorithm) \(fingerprint.value)"))
        let mediaPort = TransportAddress(ip: IPAddress("127.0.0.1")!, port: UInt16(section.port))

        let socket = try BlockingUDPSocket(receiveTimeoutMilliseconds: 50)
        var agent = ICEControllingAgent(local: credentials, remote: serverCredentials, remoteAddress: mediaPort, tieBreaker: 7)
        let dtls = try DTLSEndpoint(role: .client, certificate: certificate, expectedPeerFingerprint: serverFingerprint)
        let clock = ContinuousClock()
        let start = clock.now
        var keys: DTLSSRTPKeys?
        if let check = agent.start(at: .zero) { socket.send(check, to: mediaPort) }
        // Bounded by the agent's own schedule (it fails after 39.5 s) and DTLS's retransmissions.
        while keys == nil {
            let now = clock.now - start
            guard now < .seconds(40), dtls.state == .handshaking else { break }
            if let check = agent.tick(at: now) { socket.send(check, to: mediaPort) }
            if dtls.nextDeadline.map({ $0 <= now }) == true { dtls.handleTimeout(now: now).datagrams.forEach { socket.send($0, to: mediaPort) } }
            guard let (datagram, source) = socket.receive(), source == mediaPort else { continue }
            switch DatagramKind(classifying: datagram) {
            case .stun:
                let wasConnected = agent.state == .connected
                agent.receive(datagram, from: source, at: clock.now - start)
                if !wasConnected, agent.state == .connected { dtls.start(now: now).datagrams.forEach { socket.send($0, to: mediaPort) } }
            case .dtls:
                let output = dtls.receive(datagram, now: clock.now - start)
                output.datagrams.forEach { socket.send($0, to: mediaPort) }
                for case .connected(let connected) in output.events { keys = connected }
            default:
                continue
            }
        }
        let srtp = try SRTPSession(keys: try #require(keys, "DTLS did not complete: \(dtls.state), ICE \(agent.state)"))
        for sequence in UInt16(1)...20 {
            var packet: [UInt8] = [0x80, 111, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0, 1, 0xCA, 0xFE, 0, 1]
            packet += [UInt8](repeating: 0x55, count: 60)
            try srtp.protect(rtp: &packet)
            socket.send(packet, to: mediaPort)
        }
        // A stranger's datagrams reach no peer: dropped and counted.
        let stranger = try BlockingUDPSocket(receiveTimeoutMilliseconds: 50)
        for _ in 0..<5 { stranger.send([0x80, 0x60] + [UInt8](repeating: 1, count: 40), to: mediaPort) }
        let media = server.server.media
        let stats = try await within("the server decrypting 20 packets") {
            while true {
                if let stats = await media.stats(for: key), stats.rtpReceived == 20 { return stats }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(stats.isConnected)
        #expect(stats.counters.droppedInbound == 0)
        try await within("the stranger's datagrams counted") {
            while await media.unclaimedDatagrams() < 5 { try await Task.sleep(for: .milliseconds(20)) }
        }
        await server.stop()
    }
}
