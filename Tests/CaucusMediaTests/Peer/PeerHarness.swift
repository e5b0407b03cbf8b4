import CaucusMedia

/// A server ``MediaPeer`` and the client-role stack (``ICEControllingAgent``, a DTLS client,
/// an ``SRTPSession``) wired back to back in memory on a simulated clock.
struct PeerHarness {
    static let serverAddress = TransportAddress(ip: IPAddress("127.0.0.1")!, port: 50_000)
    static let clientAddress = TransportAddress(ip: IPAddress("127.0.0.1")!, port: 40_000)

    let server: MediaPeer
    var client: ICEControllingAgent
    let clientDTLS: DTLSEndpoint
    var clientSRTP: SRTPSession?
    var now = Duration.zero
    var serverEvents: [MediaPeerEvent] = []
    var clientDTLSEvents: [DTLSEndpoint.Event] = []

    init(consentTimeout: Duration = .seconds(30), serverExpects: DTLSFingerprint? = nil) throws {
        let serverCertificate = try DTLSCertificate.generate(commonName: "server")
        let clientCertificate = try DTLSCertificate.generate(commonName: "client")
        let serverCredentials = ICECredentials.random()
        let clientCredentials = ICECredentials.random()
        server = try MediaPeer(
            localCredentials: serverCredentials, remoteUfrag: clientCredentials.ufrag, certificate: serverCertificate,
            expectedPeerFingerprint: serverExpects ?? clientCertificate.fingerprint, now: .zero,
            consentTimeout: consentTimeout)
        client = ICEControllingAgent(
            local: clientCredentials, remote: serverCredentials, remoteAddress: Self.serverAddress, tieBreaker: 42)
        clientDTLS = try DTLSEndpoint(
            role: .client, certificate: clientCertificate, expectedPeerFingerprint: serverCertificate.fingerprint)
    }

    /// ICE, then DTLS, until both sides are quiet.
    mutating func connect() {
        if let check = client.start(at: now) { toServer([check]) }
        let flight = clientDTLS.start(now: now)
        clientDTLSEvents += flight.events
        toServer(flight.datagrams)
    }

    /// Delivers datagrams from the client to the server, and everything that follows both ways.
    mutating func toServer(_ datagrams: [[UInt8]], from source: TransportAddress = clientAddress) {
        var pending = datagrams
        while !pending.isEmpty {
            var replies: [AddressedDatagram] = []
            for datagram in pending {
                let output = server.receive(datagram, from: source, now: now)
                serverEvents += output.events
                replies += output.datagrams
            }
            pending = toClient(replies)
        }
    }

    /// Feeds the client what the server sent; returns the client's answers.
    mutating func toClient(_ datagrams: [AddressedDatagram]) -> [[UInt8]] {
        var answers: [[UInt8]] = []
        for datagram in datagrams where datagram.destination == Self.clientAddress {
            switch DatagramKind(classifying: datagram.bytes) {
            case .stun:
                client.receive(datagram.bytes, from: Self.serverAddress, at: now)
            case .dtls:
                let output = clientDTLS.receive(datagram.bytes, now: now)
                clientDTLSEvents += output.events
                answers += output.datagrams
                if clientSRTP == nil, let keys = DTLSPair.keys(output.events) { clientSRTP = try? SRTPSession(keys: keys) }
            default:
                break
            }
        }
        return answers
    }

    /// Moves the clock to `time`, running every deadline of both sides on the way (the
    /// client's consent checks included, when `clientKeepsConsent`).
    /// Bounded, so a deadline that does not move (a broken peer) fails the test instead of hanging it.
    mutating func advance(to time: Duration, clientKeepsConsent: Bool = true) {
        for _ in 0..<10_000 {
            var deadlines = [server.nextDeadline, clientDTLS.nextDeadline].compactMap { $0 }
            if clientKeepsConsent, let deadline = client.nextDeadline { deadlines.append(deadline) }
            guard let next = deadlines.min(), next <= time else { break }
            now = max(now, next)
            if clientKeepsConsent, let check = client.tick(at: now) { toServer([check]) }
            let dtlsOutput = clientDTLS.handleTimeout(now: now)
            clientDTLSEvents += dtlsOutput.events
            toServer(dtlsOutput.datagrams)
            let output = server.handleTimeout(now: now)
            serverEvents += output.events
            toServer(toClient(output.datagrams))
        }
        now = time
    }

    var serverRTP: [[UInt8]] { serverEvents.compactMap { if case .rtp(let packet) = $0 { packet } else { nil } } }
    var serverRTCP: [[UInt8]] { serverEvents.compactMap { if case .rtcp(let packet) = $0 { packet } else { nil } } }
    var serverClosed: MediaPeerCloseReason? {
        serverEvents.lazy.compactMap { if case .closed(let reason) = $0 { reason } else { nil } }.first
    }
}
