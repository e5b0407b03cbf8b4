import CaucusCore
import CaucusMedia
import CaucusMediaTestSupport
import CaucusRecording
import CaucusSFU
import CaucusStore
import Logging
import NIOCore
import Testing
@_spi(Benchmarks) @testable import CaucusServer

/// A whole media shard (`MediaShardCore`: the real peers, SRTP and router) and its users'
/// client stacks (`MediaClientPeer`), joined by a network in memory that loses, and reorders,
/// what a test tells it to. Nothing is mocked but the wire: every datagram is the one a socket
/// would carry, ICE, DTLS and SRTP included. The time is the test's: every part of the shard
/// and every client takes it from `now`, which only `advance(by:)` moves.
final class InMemoryShard {
    /// One user's client: its peer, its address, and every RTP packet it decrypted.
    final class Client {
        let key: MediaPeerKey
        let peer: MediaClientPeer
        let address: TransportAddress
        var received: [[UInt8]] = []
        var receivedRTCP: [[UInt8]] = []

        init(key: MediaPeerKey, peer: MediaClientPeer, address: TransportAddress) {
            self.key = key
            self.peer = peer
            self.address = address
        }
    }

    /// Decides the fate of each datagram on the wire, in the order sent (both directions):
    /// delivered, lost, or held and delivered after the next one (a swap).
    enum Fate { case deliver, lose, holdForNext }

    static let session = StoredSessionID(rawValue: 7)
    static let serverAddress = TransportAddress(ip: IPAddress("10.0.0.1")!, port: 3478)

    let metrics = MediaMetrics()
    let core: MediaShardCore
    private let certificate: DTLSCertificate
    private(set) var clients: [Int: Client] = [:]
    /// Asked for each media datagram (RTP or RTCP, not ICE or DTLS) with its direction and
    /// number in that direction; the default delivers everything.
    var fate: (_ toServer: Bool, _ index: Int, _ bytes: [UInt8]) -> Fate = { _, _, _ in .deliver }
    private var sentToServer = 0
    private var sentToClients = 0
    private var heldToServer: ([UInt8], TransportAddress)?
    private var heldToClient: ([UInt8], TransportAddress)?

    init() throws {
        let recording = RecordingContext(
            layout: RecordingLayout(dataDirectory: "/nonexistent"), quota: RecordingQuota(limit: nil), logger: Logger(label: "test"))
        core = MediaShardCore(
            table: MediaPeerTable(metrics: metrics), metrics: metrics, routingSlice: ServerConfiguration().mediaRoutingSlice,
            recording: recording)
        certificate = try DTLSCertificate.generate(commonName: "caucus")
    }

    /// The shard's and the clients' time.
    private(set) var now = Duration.seconds(1_000)

    func advance(by step: Duration) { now += step }

    /// Adds `user` with its offer's `sections`, and connects it (ICE, then DTLS) through the core.
    func connect(_ user: Int, sections: [SDPOffer.Section]) throws {
        let key = MediaPeerKey(session: Self.session, user: UserID(user))
        let clientCertificate = try DTLSCertificate.generate(commonName: "client \(user)")
        let clientCredentials = ICECredentials.random()
        let offer = SDPOffer(sections: sections, credentials: clientCredentials, fingerprint: clientCertificate.fingerprint)
        let plan = MediaSlotPlan.answered(try SessionDescription(parsing: offer.text), firstSSRC: UInt32(user) << 16)
        let serverCredentials = ICECredentials.random()
        let peer = try MediaPeer(
            localCredentials: serverCredentials, remoteUfrag: clientCredentials.ufrag, certificate: certificate,
            expectedPeerFingerprint: clientCertificate.fingerprint, now: now)
        let sending = Set(sections.compactMap(\.sendingSSRC))
        deliver(toClients: core.addPeer(peer, for: key, ssrcs: sending, plan: plan, now: now))
        let client = Client(
            key: key,
            peer: try MediaClientPeer(
                localCredentials: clientCredentials, certificate: clientCertificate,
                server: MediaServerEndpoint(credentials: serverCredentials, address: Self.serverAddress, fingerprint: certificate.fingerprint),
                tieBreaker: UInt64(user)),
            address: TransportAddress(ip: IPAddress("10.0.1.\(user)")!, port: 40_000))
        clients[user] = client
        send(client.peer.start(now: now).datagrams, from: client)
        try #require(client.peer.isConnected, "user \(user)'s media did not connect: \(client.peer.state)")
    }

    /// The router's routing for the users named: where each is, and what it may receive.
    func route(_ users: [Int: (location: Location, eligible: [PublishedStream])]) {
        var handover = MediaHandover()
        for (user, entry) in users {
            handover.users[user] = MediaHandover.Entry(eligible: entry.eligible, location: entry.location, connection: nil)
        }
        core.router.update(Self.session, handover, now: now)
        flush()
    }

    /// Sends RTP `packet` from `user`'s client, protected, through the network.
    func publish(_ packet: [UInt8], from user: Int) throws {
        let client = try #require(clients[user])
        send([try #require(client.peer.protect(rtp: packet))], from: client)
    }

    /// Sends an RTCP compound packet from `user`'s client.
    func send(rtcp packets: [RTCPPacket], from user: Int) throws {
        let client = try #require(clients[user])
        send([try #require(client.peer.protect(rtcp: RTCPPacket.encodeCompound(packets)))], from: client)
    }

    /// The core's timers: what its engines have due (`nextEngineDeadline`: repairs, the
    /// periodic work), and its peers' deadlines.
    func tick() {
        deliver(toClients: core.handleTimeout(now: now))
        flush()
    }

    /// Delivers whatever is held back for a swap (nothing came after it).
    func drain() {
        if let (bytes, source) = heldToServer {
            heldToServer = nil
            arriveAtServer(bytes, from: source)
        }
        if let (bytes, destination) = heldToClient {
            heldToClient = nil
            arriveAtClient(bytes, at: destination)
        }
        flush()
    }

    // MARK: - The wire

    private func send(_ datagrams: [AddressedDatagram], from client: Client) {
        for datagram in datagrams { carry(datagram.bytes, client.address, toServer: true) }
        flush()
    }

    /// One datagram onto the wire: ICE and DTLS always arrive; media as `fate` says, a held
    /// one arriving right after the next one in its direction.
    private func carry(_ bytes: [UInt8], _ address: TransportAddress, toServer: Bool) {
        let arrive = toServer ? arriveAtServer : arriveAtClient
        let kind = DatagramKind(classifying: bytes)
        guard kind == .rtp || kind == .rtcp else { return arrive(bytes, address) }
        if toServer { sentToServer += 1 } else { sentToClients += 1 }
        switch fate(toServer, toServer ? sentToServer : sentToClients, bytes) {
        case .lose: return
        case .holdForNext:
            if toServer { heldToServer = (bytes, address) } else { heldToClient = (bytes, address) }
        case .deliver:
            arrive(bytes, address)
            let held = toServer ? heldToServer : heldToClient
            if toServer { heldToServer = nil } else { heldToClient = nil }
            if let (bytes, address) = held { arrive(bytes, address) }
        }
    }

    private func arriveAtServer(_ bytes: [UInt8], from source: TransportAddress) {
        var bytes = bytes
        guard let replies = core.receive(datagram: &bytes, from: source, at: now) else {
            Issue.record("the shard claimed no datagram from \(source)")
            return
        }
        deliver(toClients: replies)
    }

    /// What the router forwarded, onto the wire.
    private func flush() {
        let forwarded = core.takeOutboxDatagrams()
        if !forwarded.isEmpty { deliver(toClients: forwarded) }
    }

    private func deliver(toClients datagrams: [AddressedDatagram]) {
        for datagram in datagrams { carry(datagram.bytes, datagram.destination, toServer: false) }
    }

    private func arriveAtClient(_ bytes: [UInt8], at destination: TransportAddress) {
        guard let client = clients.values.first(where: { $0.address == destination }) else { return }
        let output = client.peer.receive(bytes, from: Self.serverAddress, now: now)
        for event in output.events {
            switch event {
            case .rtp(let packet): client.received.append(packet)
            case .rtcp(let packet): client.receivedRTCP.append(packet)
            default: break
            }
        }
        send(output.datagrams, from: client)
    }
}
