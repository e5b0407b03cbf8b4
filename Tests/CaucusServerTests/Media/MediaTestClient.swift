import CaucusCore
import CaucusMedia
import CaucusMediaTestSupport
import Foundation
import Testing
@testable import CaucusServer

/// A user's media connected through the client-role stack of CaucusMedia (`MediaClientPeer`,
/// its offer from `SDPOffer`) over a real UDP socket to the server's media port, after a
/// `mediaOffer` on the WebSocket: the server's peer is connected and SRTP keyed.
final class MediaTestClient {
    static let ssrc: UInt32 = 0xCAFE_0001

    let socket: LoopbackUDPSocket
    let peer: MediaClientPeer
    let mediaPort: TransportAddress
    /// The server's peer of this user.
    let key: MediaPeerKey
    /// The server's SSRC for each receive slot, by mid.
    let slotSSRCs: [String: UInt32]
    /// The SSRC its offer's first sending section names, which its packets carry.
    let sendingSSRC: UInt32
    private let started: ContinuousClock.Instant

    private init(
        socket: consuming LoopbackUDPSocket, peer: MediaClientPeer, key: MediaPeerKey, slotSSRCs: [String: UInt32],
        sendingSSRC: UInt32, started: ContinuousClock.Instant
    ) {
        self.socket = socket
        self.peer = peer
        self.mediaPort = peer.server.address
        self.key = key
        self.slotSSRCs = slotSSRCs
        self.sendingSSRC = sendingSSRC
        self.started = started
    }

    private var now: Duration { ContinuousClock.now - started }

    /// Sends a consent check when one is due (RFC 7675), so the server keeps the peer.
    func keepConsent() {
        guard let deadline = peer.nextDeadline, deadline <= now else { return }
        peer.handleTimeout(now: now).datagrams.forEach { socket.send($0.bytes, to: $0.destination) }
    }

    /// Offers `sections` (by default one sending audio section, no receive slot) and connects.
    static func connect(
        _ client: TestClient, on server: TestServer, sections: [SDPOffer.Section] = [.init(kind: .audio, direction: .sendonly, sendingSSRC: ssrc)],
        audioLevelID: UInt8? = nil
    ) async throws -> MediaTestClient {
        let key = try await MediaSignallingTests.key(of: client, on: server)
        let certificate = try DTLSCertificate.generate(commonName: "client")
        let credentials = ICECredentials.random()
        var offer = SDPOffer(sections: sections, credentials: credentials, fingerprint: certificate.fingerprint)
        offer.audioLevelID = audioLevelID
        let answerText = try #require(try await client.request("mediaOffer", ["sdp": offer.text])["sdp"] as? String)
        let answer = try SessionDescription(parsing: answerText)
        let slotSSRCs = Dictionary(uniqueKeysWithValues: answer.media.compactMap { section in
            section.mid.flatMap { mid in section.ssrcs.keys.first.map { (mid, $0) } }
        })
        let peer = try MediaClientPeer(
            localCredentials: credentials, certificate: certificate, server: try MediaServerEndpoint(answer: answer), tieBreaker: 7)

        let socket = try LoopbackUDPSocket(receiveTimeoutMilliseconds: 50)
        let started = ContinuousClock.now
        func now() -> Duration { ContinuousClock.now - started }
        peer.start(now: now()).datagrams.forEach { socket.send($0.bytes, to: $0.destination) }
        // Bounded by ICE's own schedule (it fails after 39.5 s) and DTLS's retransmissions.
        while !peer.isConnected, !peer.isClosed, now() < .seconds(40) {
            if let deadline = peer.nextDeadline, deadline <= now() {
                peer.handleTimeout(now: now()).datagrams.forEach { socket.send($0.bytes, to: $0.destination) }
            }
            guard let (datagram, source) = socket.receive() else { continue }
            peer.receive(datagram, from: source, now: now()).datagrams.forEach { socket.send($0.bytes, to: $0.destination) }
        }
        try #require(peer.isConnected, "media did not connect: \(peer.state)")
        let sendingSSRC = sections.lazy.compactMap(\.sendingSSRC).first ?? Self.ssrc
        return MediaTestClient(socket: socket, peer: peer, key: key, slotSSRCs: slotSSRCs, sendingSSRC: sendingSSRC, started: started)
    }

    /// Ada (the host) publishing audio from her own peer, and Bo with one audio receive slot:
    /// the two ends of a forwarding test.
    static func adaPublishingToBo(on server: TestServer) async throws -> (publisher: MediaTestClient, receiver: MediaTestClient) {
        let ada = try await server.joined("Ada", role: .host)
        let bo = try await server.joined("Bo")
        let publisher = try await connect(ada, on: server)
        let receiver = try await connect(bo, on: server, sections: [.receiving(.audio)])
        try await ada.request("publish", ["media": ["audio"]])
        return (publisher, receiver)
    }

    /// An SRTP packet of this client's stream (``sendingSSRC``), protected.
    func protectedPacket(sequence: UInt16, payloadType: UInt8 = SDPOffer.opusPayloadType) throws -> [UInt8] {
        var packet: [UInt8] = [0x80, payloadType, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0, 1]
        packet += withUnsafeBytes(of: sendingSSRC.bigEndian, Array.init)
        packet += [UInt8](repeating: 0x55, count: 60)
        return try #require(peer.protect(rtp: packet)).bytes
    }

    /// Sends packets `sequences` of its stream.
    func sendMedia(_ sequences: ClosedRange<UInt16>, payloadType: UInt8 = SDPOffer.opusPayloadType) throws {
        for sequence in sequences { socket.send(try protectedPacket(sequence: sequence, payloadType: payloadType), to: mediaPort) }
    }

    /// Sends an RTCP compound packet, protected.
    func send(rtcp packets: [RTCPPacket]) throws {
        socket.send(try #require(peer.protect(rtcp: RTCPPacket.encodeCompound(packets))).bytes, to: mediaPort)
    }

    /// The first unprotected packet `matching` that arrives (consent kept meanwhile); nil after
    /// `reads` reads, each waiting at most 50 ms for a datagram.
    func next<T>(reads: Int = 400, _ matching: (MediaPeerEvent) -> T?) -> T? {
        for _ in 0..<reads {
            keepConsent()
            guard let (datagram, source) = socket.receive() else { continue }
            let output = peer.receive(datagram, from: source, now: now)
            output.datagrams.forEach { socket.send($0.bytes, to: $0.destination) }
            if let found = output.events.lazy.compactMap(matching).first { return found }
        }
        return nil
    }
}
