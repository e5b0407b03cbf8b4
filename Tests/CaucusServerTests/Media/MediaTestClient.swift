import CaucusCore
import CaucusMedia
import CaucusMediaTestSupport
import Foundation
import Testing
@testable import CaucusServer

/// A user's media connected through the client-role stack of CaucusMedia
/// (`ICEControllingAgent`, a DTLS client) over a real UDP socket to the server's media port,
/// after a `mediaOffer` on the WebSocket: the server's peer is connected and SRTP keyed.
final class MediaTestClient {
    let socket: LoopbackUDPSocket
    let srtp: SRTPSession
    let mediaPort: TransportAddress
    /// The server's peer of this user.
    let key: MediaPeerKey
    private var agent: ICEControllingAgent
    private let started: ContinuousClock.Instant

    private init(
        socket: consuming LoopbackUDPSocket, srtp: SRTPSession, mediaPort: TransportAddress, key: MediaPeerKey,
        agent: ICEControllingAgent, started: ContinuousClock.Instant
    ) {
        self.socket = socket
        self.srtp = srtp
        self.mediaPort = mediaPort
        self.key = key
        self.agent = agent
        self.started = started
    }

    /// Sends a consent check when one is due (RFC 7675), so the server keeps the peer.
    func keepConsent() {
        if let check = agent.tick(at: ContinuousClock.now - started) { socket.send(check, to: mediaPort) }
    }

    static func connect(_ client: TestClient, on server: TestServer) async throws -> MediaTestClient {
        let key = try await MediaSignallingTests.key(of: client, on: server)
        let certificate = try DTLSCertificate.generate(commonName: "client")
        let credentials = ICECredentials.random()
        let offer = MediaSignallingTests.offer
            .replacingOccurrences(of: "a=ice-ufrag:abcd", with: "a=ice-ufrag:\(credentials.ufrag)")
            .replacingOccurrences(of: "a=ice-pwd:0123456789012345678901", with: "a=ice-pwd:\(credentials.pwd)")
            .replacing(#/a=fingerprint:sha-256 \S+/#, with: "a=fingerprint:" + certificate.fingerprint.sdpValue)
        let answerText = try #require(try await client.request("mediaOffer", ["sdp": offer])["sdp"] as? String)
        let answer = try SessionDescription(parsing: answerText)
        let section = try #require(answer.media.first)
        let serverCredentials = ICECredentials(ufrag: try #require(section.iceUfrag), pwd: try #require(section.icePwd))
        let fingerprint = try #require(section.fingerprints.first)
        let serverFingerprint = try #require(DTLSFingerprint(sdpValue: "\(fingerprint.algorithm) \(fingerprint.value)"))
        let mediaPort = TransportAddress(ip: IPAddress("127.0.0.1")!, port: UInt16(section.port))

        let socket = try LoopbackUDPSocket(receiveTimeoutMilliseconds: 50)
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
        return MediaTestClient(socket: socket, srtp: srtp, mediaPort: mediaPort, key: key, agent: agent, started: start)
    }

    /// An SRTP packet of this client's stream (SSRC 0xCAFE0001), protected.
    func protectedPacket(sequence: UInt16) throws -> [UInt8] {
        var packet: [UInt8] = [0x80, 111, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0, 1, 0xCA, 0xFE, 0, 1]
        packet += [UInt8](repeating: 0x55, count: 60)
        try srtp.protect(rtp: &packet)
        return packet
    }

    /// Sends packets `sequences` of its stream.
    func sendMedia(_ sequences: ClosedRange<UInt16>) throws {
        for sequence in sequences { socket.send(try protectedPacket(sequence: sequence), to: mediaPort) }
    }
}
