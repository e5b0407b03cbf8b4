import CaucusMedia
import Testing

/// The client-role stack against the server's ``MediaPeer``, in memory on a simulated clock:
/// an ``SDPOffer`` the server's answerer accepts, the endpoint read back from the answer,
/// ICE and DTLS in the client's roles, SRTP both ways, and what it refuses.
@Suite struct MediaClientPeerTests {
    static let serverAddress = TransportAddress(ip: IPAddress("127.0.0.1")!, port: 50_000)
    static let clientAddress = TransportAddress(ip: IPAddress("127.0.0.1")!, port: 40_000)

    /// Both sides, connected through the offer and answer as a real client does it.
    struct Pair {
        let client: MediaClientPeer
        let server: MediaPeer
        var now = Duration.zero
        var serverEvents: [MediaPeerEvent] = []
        var clientEvents: [MediaPeerEvent] = []

        init(serverExpects: DTLSFingerprint? = nil) throws {
            let clientCertificate = try DTLSCertificate.generate(commonName: "client")
            let serverCertificate = try DTLSCertificate.generate(commonName: "server")
            let clientCredentials = ICECredentials.random()
            let offer = SDPOffer(
                sections: [.publishing(.audio, ssrc: 0x1234), .receiving(.audio), .receiving(.video)],
                credentials: clientCredentials, fingerprint: clientCertificate.fingerprint)
            let serverCredentials = ICECredentials.random()
            let answer = try SDPAnswer(
                answering: try SessionDescription(parsing: offer.text),
                options: SDPAnswerOptions(
                    iceUfrag: serverCredentials.ufrag, icePwd: serverCredentials.pwd,
                    fingerprint: SDPFingerprint(algorithm: "sha-256", digest: serverCertificate.fingerprint.bytes),
                    candidate: MediaClientPeerTests.serverAddress, sessionID: 1))
            #expect(answer.media.map(\.codec?.name) == ["opus", "opus", "VP8"])
            #expect(answer.media.map(\.direction) == [.sendrecv, .sendonly, .sendonly])
            #expect(answer.media[0].remoteSSRCs == [0x1234])
            let offered = try #require(DTLSFingerprint(sdpValue: "\(answer.remoteFingerprints[0].algorithm) \(answer.remoteFingerprints[0].value)"))
            server = try MediaPeer(
                localCredentials: serverCredentials, remoteUfrag: answer.remoteICEUfrag, certificate: serverCertificate,
                expectedPeerFingerprint: serverExpects ?? offered, now: .zero)
            let endpoint = try MediaServerEndpoint(answer: try SessionDescription(parsing: answer.text))
            #expect(endpoint == MediaServerEndpoint(credentials: serverCredentials, address: MediaClientPeerTests.serverAddress, fingerprint: serverCertificate.fingerprint))
            client = try MediaClientPeer(localCredentials: clientCredentials, certificate: clientCertificate, server: endpoint, tieBreaker: 9)
        }

        /// Delivers the client's datagrams and everything that follows both ways, until quiet.
        mutating func exchange(_ first: MediaPeerOutput) {
            clientEvents += first.events
            var toServer = first.datagrams
            for _ in 0..<100 where !toServer.isEmpty {
                var toClient: [AddressedDatagram] = []
                for datagram in toServer {
                    #expect(datagram.destination == MediaClientPeerTests.serverAddress)
                    let output = server.receive(datagram.bytes, from: MediaClientPeerTests.clientAddress, now: now)
                    serverEvents += output.events
                    toClient += output.datagrams
                }
                toServer = []
                for datagram in toClient {
                    let output = client.receive(datagram.bytes, from: MediaClientPeerTests.serverAddress, now: now)
                    clientEvents += output.events
                    toServer += output.datagrams
                }
            }
        }

        /// Runs both sides' deadlines up to `time`.
        mutating func advance(to time: Duration) {
            for _ in 0..<10_000 {
                guard let next = [client.nextDeadline, server.nextDeadline].compactMap({ $0 }).min(), next <= time else { break }
                now = next
                exchange(client.handleTimeout(now: now))
                _ = server.handleTimeout(now: now)
            }
            now = time
        }
    }

    @Test func connectsToTheServersPeerThroughItsOwnOfferAndCarriesSRTPBothWays() throws {
        var pair = try Pair()
        pair.exchange(pair.client.start(now: .zero))
        #expect(pair.client.state == .connected)
        #expect(pair.client.profile != nil && pair.client.profile == pair.server.profile)
        #expect(pair.clientEvents.contains { if case .connected = $0 { true } else { false } })
        #expect(pair.server.selectedAddress == Self.clientAddress)

        let rtp: [UInt8] = [0x80, 111, 0, 1, 0, 0, 0, 1, 0, 0, 0x12, 0x34] + [UInt8](repeating: 7, count: 40)
        let up = try #require(pair.client.protect(rtp: rtp))
        #expect(up.bytes != rtp)
        #expect(pair.server.receive(up.bytes, from: Self.clientAddress, now: pair.now).events == [.rtp(rtp)])
        let down = try #require(pair.server.protect(rtp: rtp))
        #expect(pair.client.receive(down.bytes, from: Self.serverAddress, now: pair.now).events == [.rtp(rtp)])
        // The same datagram again is a replay.
        #expect(pair.client.receive(down.bytes, from: Self.serverAddress, now: pair.now).events.isEmpty)
        #expect(pair.client.counters.replays == 1)

        // The server's in-place path (the forwarding one) makes what the client opens.
        let next: [UInt8] = [0x80, 111, 0, 2, 0, 0, 0, 2, 0, 0, 0x12, 0x34] + [UInt8](repeating: 9, count: 40)
        let tagLength = try #require(pair.server.profile).tagLength
        var buffer = next + [UInt8](repeating: 0, count: tagLength)
        let inPlace = try #require(buffer.withUnsafeMutableBytes { pair.server.protect(rtp: $0, length: next.count) })
        #expect(inPlace.destination == Self.clientAddress && inPlace.length == buffer.count)
        #expect(pair.client.receive(buffer, from: Self.serverAddress, now: pair.now).events == [.rtp(next)])
        var tooSmall = next
        #expect(tooSmall.withUnsafeMutableBytes { pair.server.protect(rtp: $0, length: next.count) } == nil)
        #expect(pair.server.counters.protectFailures == 1)
    }

    @Test func keepsConsentSoTheServerKeepsItsPeer() throws {
        var pair = try Pair()
        pair.exchange(pair.client.start(now: .zero))
        pair.advance(to: .seconds(95))
        #expect(pair.client.state == .connected)
        #expect(!pair.server.isClosed, "the server's 30 s consent timeout passed three times over")
    }

    @Test func datagramsFromAnyoneButTheServerAreDroppedAndCounted() throws {
        var pair = try Pair()
        pair.exchange(pair.client.start(now: .zero))
        let stranger = TransportAddress(ip: IPAddress("127.0.0.1")!, port: 1)
        let rtp: [UInt8] = [0x80, 111, 0, 1, 0, 0, 0, 1, 0, 0, 0x12, 0x34] + [UInt8](repeating: 7, count: 40)
        let down = try #require(pair.server.protect(rtp: rtp))
        #expect(pair.client.receive(down.bytes, from: stranger, now: pair.now).events.isEmpty)
        #expect(pair.client.receive([1, 2, 3], from: Self.serverAddress, now: pair.now).events.isEmpty)
        #expect(pair.client.counters.mediaWithoutConsent == 1 && pair.client.counters.malformed == 1)
        #expect(pair.client.receive(down.bytes, from: Self.serverAddress, now: pair.now).events == [.rtp(rtp)])
    }

    @Test func aServerThatNeverAnswersFailsICEOnItsSchedule() throws {
        let pair = try Pair()
        _ = pair.client.start(now: .zero)
        var now = Duration.zero
        for _ in 0..<20 {
            guard let next = pair.client.nextDeadline else { break }
            now = next
            _ = pair.client.handleTimeout(now: now)
        }
        #expect(pair.client.state == .closed(.iceFailed(.timedOut)))
        #expect(pair.client.protect(rtp: [0x80, 111, 0, 1, 0, 0, 0, 1, 0, 0, 0x12, 0x34]) == nil)
    }

    @Test func aServerWhoseCertificateIsNotTheAnswersFailsTheHandshake() throws {
        let other = try DTLSCertificate.generate(commonName: "other")
        var pair = try Pair(serverExpects: other.fingerprint)
        pair.exchange(pair.client.start(now: .zero))
        #expect(pair.client.state != .connected)
        #expect(pair.server.isClosed)
    }

    @Test func closingSendsCloseNotifyAndTheServerPeerEnds() throws {
        var pair = try Pair()
        pair.exchange(pair.client.start(now: .zero))
        pair.exchange(pair.client.close(now: pair.now))
        #expect(pair.client.state == .closed(.closedByUs))
        #expect(pair.server.isClosed)
    }

    @Test func anAnswerWithoutWhatAClientNeedsIsRefused() throws {
        let base = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\nm=audio 5000 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\na=mid:0\r\na=rtcp-mux\r\na=rtpmap:111 opus/48000/2\r\n"
        let ice = "a=ice-ufrag:abcd\r\na=ice-pwd:0123456789012345678901\r\n"
        let fingerprint = "a=fingerprint:sha-256 " + Array(repeating: "AB", count: 32).joined(separator: ":") + "\r\n"
        let candidate = "a=candidate:1 1 udp 2130706431 127.0.0.1 5000 typ host\r\n"
        #expect(throws: MediaAnswerError.noICECredentials) { try MediaServerEndpoint(answer: try SessionDescription(parsing: base)) }
        #expect(throws: MediaAnswerError.noFingerprint) { try MediaServerEndpoint(answer: try SessionDescription(parsing: base + ice)) }
        #expect(throws: MediaAnswerError.noCandidate) { try MediaServerEndpoint(answer: try SessionDescription(parsing: base + ice + fingerprint)) }
        let endpoint = try MediaServerEndpoint(answer: try SessionDescription(parsing: base + ice + fingerprint + candidate))
        #expect(endpoint.address == TransportAddress(ip: IPAddress("127.0.0.1")!, port: 5000))
    }
}
