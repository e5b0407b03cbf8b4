import CaucusMedia

/// A client and a server endpoint wired back to back in memory, on a simulated clock, with
/// a hook to lose or inspect datagrams in flight.
struct DTLSPair {
    let client: DTLSEndpoint
    let server: DTLSEndpoint
    var now = Duration.zero
    var clientEvents: [DTLSEndpoint.Event] = []
    var serverEvents: [DTLSEndpoint.Event] = []
    /// Datagrams sent so far, client's and server's, including lost ones.
    var clientDatagrams = 0
    var serverDatagrams = 0

    init(
        clientProfiles: [SRTPProfile] = [.aeadAES128GCM, .aesCM128HMACSHA1_80],
        serverProfiles: [SRTPProfile] = [.aeadAES128GCM, .aesCM128HMACSHA1_80],
        clientExpects: DTLSFingerprint? = nil,
        serverExpects: DTLSFingerprint? = nil
    ) throws {
        let clientCertificate = try DTLSCertificate.generate(commonName: "client")
        let serverCertificate = try DTLSCertificate.generate(commonName: "server")
        client = try DTLSEndpoint(
            role: .client, certificate: clientCertificate,
            expectedPeerFingerprint: clientExpects ?? serverCertificate.fingerprint, profiles: clientProfiles)
        server = try DTLSEndpoint(
            role: .server, certificate: serverCertificate,
            expectedPeerFingerprint: serverExpects ?? clientCertificate.fingerprint, profiles: serverProfiles)
    }

    /// Runs the handshake until neither side has anything to send; `lose` decides, per
    /// datagram (numbered per sender from 0), whether it is dropped. When both sides go quiet
    /// before connecting, the clock jumps to the earliest retransmission deadline.
    mutating func run(lose: (_ fromClient: Bool, _ number: Int) -> Bool = { _, _ in false }, maxRounds: Int = 50) {
        var toServer = deliver(client.start(now: now), fromClient: true, lose: lose)
        var toClient: [[UInt8]] = []
        for _ in 0..<maxRounds {
            for datagram in toServer { toClient += deliver(server.receive(datagram, now: now), fromClient: false, lose: lose) }
            toServer = []
            for datagram in toClient { toServer += deliver(client.receive(datagram, now: now), fromClient: true, lose: lose) }
            toClient = []
            if !toServer.isEmpty { continue }
            if client.state != .handshaking && server.state != .handshaking { return }
            let deadlines = [client.nextDeadline, server.nextDeadline].compactMap { $0 }
            guard let next = deadlines.min() else { return }
            now = next
            if client.nextDeadline.map({ $0 <= now }) == true {
                toServer += deliver(client.handleTimeout(now: now), fromClient: true, lose: lose)
            }
            if server.nextDeadline.map({ $0 <= now }) == true {
                toClient += deliver(server.handleTimeout(now: now), fromClient: false, lose: lose)
            }
            // Whatever the server retransmitted reaches the client in the next round.
            for datagram in toClient { toServer += deliver(client.receive(datagram, now: now), fromClient: true, lose: lose) }
            toClient = []
        }
    }

    private mutating func deliver(
        _ output: DTLSEndpoint.Output,
        fromClient: Bool,
        lose: (Bool, Int) -> Bool
    ) -> [[UInt8]] {
        if fromClient { clientEvents += output.events } else { serverEvents += output.events }
        var delivered: [[UInt8]] = []
        for datagram in output.datagrams {
            let number = fromClient ? clientDatagrams : serverDatagrams
            if fromClient { clientDatagrams += 1 } else { serverDatagrams += 1 }
            if !lose(fromClient, number) { delivered.append(datagram) }
        }
        return delivered
    }

    static func keys(_ events: [DTLSEndpoint.Event]) -> DTLSSRTPKeys? {
        for case .connected(let keys) in events { return keys }
        return nil
    }

    static func failure(_ events: [DTLSEndpoint.Event]) -> DTLSError? {
        for case .failed(let error) in events { return error }
        return nil
    }
}
