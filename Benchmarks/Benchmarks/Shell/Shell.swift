import Benchmark
import BenchmarkSupport
import CaucusCore
import CaucusMedia
import CaucusSFU
@_spi(Benchmarks) import CaucusServer

/// The media shard's packet path in steady state, shell included: a publisher's SRTP datagram
/// into the shard's core (`MediaShardCore`: the peer table's lookup, SRTP, the router, the
/// engine, each copy's SRTP protection into the outbox) and the outbox emptied, as the channel
/// handler does for every datagram of a read batch. Only the socket is missing: the datagrams
/// come from memory and are not sent (NIO's writes are not counted). Counts what one packet in
/// costs, for one subscriber and for a room of twenty, audio and video; and for video, a packet
/// in with one subscriber's NACK for it answered from the retransmission cache.
let benchmarks: @Sendable () -> Void = {
    AllocationCounting.configure()
    for kind in [StreamKind.audio, .video] {
        for subscribers in [1, 19] {
            Benchmark("\(kind) datagram in, \(subscribers) datagram\(subscribers == 1 ? "" : "s") out") { benchmark in
                let room = try ShellRoom.shared(kind: kind, subscribers: subscribers)
                // The publisher's client protects the next packets before the measurement: what
                // is counted is the server's.
                let datagrams = room.publish(benchmark.scaledIterations.count)
                let before = (room.packets, room.copies)
                benchmark.startMeasurement()
                for datagram in datagrams { room.forward(datagram) }
                benchmark.stopMeasurement()
                let (packets, copies) = (room.packets - before.0, room.copies - before.1)
                guard copies == packets * subscribers else {
                    fatalError("every packet must reach every subscriber: \(copies) copies of \(packets) packets")
                }
            }
        }
    }
    for subscribers in [1, 19] {
        Benchmark("video datagram in and a NACK for it answered, \(subscribers) subscriber\(subscribers == 1 ? "" : "s")") { benchmark in
            // A room of its own: its first subscriber's NACKs change nothing the others count.
            let room = try ShellRoom.shared(kind: .video, subscribers: subscribers, label: "repairs")
            let count = benchmark.scaledIterations.count
            // The NACKs first: the first run's finds the slot with a packet of its own.
            let nacks = try room.nacksOfTheFirstSubscriber(forTheNext: count)
            let datagrams = room.publish(count)
            let before = room.repairs
            benchmark.startMeasurement()
            for (datagram, nack) in zip(datagrams, nacks) {
                room.forward(datagram)
                room.answer(nack)
            }
            benchmark.stopMeasurement()
            guard room.repairs - before >= count else {
                fatalError("every NACK must be answered: \(room.repairs - before) repairs for \(count) NACKs")
            }
        }
    }
}

/// A shard (`MediaShardCore.detached`) with a publisher (user 0, of `kind`: audio, or VP8 video
/// whose every packet opens a keyframe, so every slot takes it at once) and `subscribers` users
/// each with three receive slots of that kind, all in one room. Every user's client stack
/// (`MediaClientPeer`) connects through the core in memory (ICE, DTLS, SRTP), so the server's
/// peers are the ones a socket would have; after that the publisher's client sends media, and
/// every client checks consent between runs (``publish(_:)``).
final class ShellRoom {
    static let publisherSSRC: UInt32 = 0x5EED_0000
    static let session: Int64 = 1
    static let serverAddress = TransportAddress(ip: IPAddress("10.0.0.1")!, port: 3478)

    /// One room per shape, made on the first run and kept (a handshake per run would be most of
    /// the time): SRTP's numbers go on from run to run.
    nonisolated(unsafe) private static var rooms: [String: ShellRoom] = [:]
    // Safe: Benchmark runs a benchmark's closure on one thread at a time, one benchmark after
    // another, and only those closures touch `rooms`.

    static func shared(kind: StreamKind, subscribers: Int, label: String = "") throws -> ShellRoom {
        let name = "\(kind) \(subscribers) \(label)"
        if let room = rooms[name] { return room }
        let room = try ShellRoom(kind: kind, subscribers: subscribers)
        rooms[name] = room
        return room
    }

    let core = MediaShardCore.detached(routingSlice: .max)
    let kind: StreamKind
    /// Every user's client, the publisher's first.
    let clients: [MediaClientPeer]
    private var publisher: MediaClientPeer { clients[0] }
    private let publisherAddress = ShellRoom.address(of: 0)
    /// Made once: ``address(of:)`` parses its text, three allocations a call that the NACK
    /// benchmark counted as the server's until they were traced (`--allocation-stacks`).
    let firstSubscriberAddress = ShellRoom.address(of: 1)
    private var sequence: UInt16 = 0
    /// Goes on past the sequence number's wrap, as a real stream's does (a timestamp that fell
    /// back 63 million ticks with the wrap made the engine drop the packets as out of date).
    private var timestamp: UInt32 = 0
    private(set) var now = Duration.seconds(1_000)
    private(set) var packets = 0
    private(set) var copies = 0
    /// Datagrams answering NACKs (``answer(_:)``).
    var repairs = 0
    /// The first subscriber's slot that carries the publisher: its SSRC, and the sequence number
    /// its next copy gets (``nacksOfTheFirstSubscriber(forTheNext:)``).
    var watchedSlot: (ssrc: UInt32, next: UInt16)?

    init(kind: StreamKind, subscribers: Int) throws {
        self.kind = kind
        let sdpKind: SDPOffer.Section.Kind = kind == .audio ? .audio : .video
        let certificate = try DTLSCertificate.generate(commonName: "bench")
        var clients: [MediaClientPeer] = []
        for user in 0...subscribers {
            let sections: [SDPOffer.Section] =
                user == 0
                ? [.init(kind: sdpKind, direction: .sendonly, sendingSSRC: Self.publisherSSRC)]
                : Array(repeating: .receiving(sdpKind), count: 3)
            clients.append(try Self.connect(user, sections: sections, to: core, certificate: certificate, now: now))
        }
        self.clients = clients
        let stream = PublishedStream(publisher: 0, kind: kind)
        var users: [Int: (location: Location, eligible: [PublishedStream])] = [:]
        for user in 0...subscribers { users[user] = (.room(RoomID(1)), user == 0 ? [] : [stream]) }
        core.route(Self.session, users, now: now)
        _ = core.takeOutboxDatagrams()
        // Warm: the first packets set the slots' numbering up and the buffers' capacities.
        for _ in 0..<4 {
            for datagram in publish(512) { forward(datagram) }
        }
    }

    /// The publisher's next `count` packets, protected by its client. First every client checks
    /// consent when its agent says so (every few seconds of the room's time), as a browser
    /// does: a run of 1,000 packets spans 1 s (``step``), well within the 30 s a check keeps
    /// consent.
    func publish(_ count: Int) -> [[UInt8]] {
        for (user, client) in clients.enumerated() {
            if let due = client.nextDeadline, due <= now { Self.exchange(client.handleTimeout(now: now).datagrams, user, client, core, now) }
        }
        _ = core.takeOutboxDatagrams()
        return (0..<count).map { _ in
            defer { (sequence, timestamp) = (sequence &+ 1, timestamp &+ 960) }
            let payloadType = kind == .audio ? SDPOffer.opusPayloadType : SDPOffer.vp8PayloadType
            var packet: [UInt8] = [0x80, payloadType, UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
            packet += withUnsafeBytes(of: timestamp.bigEndian, Array.init)
            packet += withUnsafeBytes(of: Self.publisherSSRC.bigEndian, Array.init)
            // VP8 (RFC 7741): S set, partition 0, then a keyframe's first byte (P clear).
            let payload: [UInt8] = kind == .audio ? [] : [0x10, 0x00]
            return publisher.protect(rtp: packet + payload + [UInt8](repeating: 0xA4, count: kind == .audio ? 80 : 1_000))!.bytes
        }
    }

    /// The room's time between two packets: a thousand a second, as from twenty publishers'
    /// audio (the packets' own timestamps step 20 ms). A packet a 20 ms would let a run of
    /// 1,000 outlast the consent of checks made before it.
    static let step = Duration.milliseconds(1)

    /// Every datagram's bytes on their way in, as the channel handler keeps them.
    private var scratch: [UInt8] = []

    /// One datagram through the core, as the channel handler hands it over (copied from the
    /// socket's buffer into storage used again for the next), and the outbox emptied.
    @inline(__always)
    func forward(_ datagram: [UInt8]) {
        now += Self.step
        enter(datagram, from: publisherAddress)
        packets += 1
        core.drainOutbox { datagrams, _ in copies += datagrams }
    }

    /// `datagram` from `source` into the core, as the channel handler hands it over; it must be
    /// taken as media (no answer).
    @inline(__always)
    func enter(_ datagram: [UInt8], from source: TransportAddress) {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: datagram)
        guard let replies = core.receiveDatagram(&scratch, from: source, at: now), replies.isEmpty else {
            fatalError("the shard did not take the datagram from \(source) as media")
        }
    }

    /// The wire: what `client` sends reaches the core, what the core answers reaches the
    /// client, until neither has more to say.
    private static func exchange(
        _ datagrams: [AddressedDatagram], _ user: Int, _ client: MediaClientPeer, _ core: MediaShardCore, _ now: Duration
    ) {
        var toServer = datagrams
        while !toServer.isEmpty {
            var next: [AddressedDatagram] = []
            for datagram in toServer {
                var bytes = datagram.bytes
                for reply in core.receiveDatagram(&bytes, from: address(of: user), at: now) ?? [] {
                    next += client.receive(reply.bytes, from: serverAddress, now: now).datagrams
                }
            }
            toServer = next
        }
    }

    static func address(of user: Int) -> TransportAddress {
        TransportAddress(ip: IPAddress("10.0.1.\(user + 1)")!, port: 40_000)
    }

    /// Adds `user`'s peer to the core with its offer's plan, and runs its client's handshake
    /// through the core until it is connected.
    private static func connect(
        _ user: Int, sections: [SDPOffer.Section], to core: MediaShardCore, certificate: DTLSCertificate, now: Duration
    ) throws -> MediaClientPeer {
        let clientCertificate = try DTLSCertificate.generate(commonName: "client \(user)")
        let clientCredentials = ICECredentials.random()
        let offer = SDPOffer(sections: sections, credentials: clientCredentials, fingerprint: clientCertificate.fingerprint)
        let description = try SessionDescription(parsing: offer.text)
        // The plan `caucus serve` makes: the offer's slots with what its answer chose.
        var nextSSRC = UInt32(user + 1) << 16
        var plan = MediaSlotPlan(offer: description) {
            defer { nextSSRC += 1 }
            return nextSSRC
        }
        let serverCredentials = ICECredentials.random()
        var options = SDPAnswerOptions(
            iceUfrag: serverCredentials.ufrag, icePwd: serverCredentials.pwd,
            fingerprint: SDPFingerprint(algorithm: "sha-256", digest: certificate.fingerprint.bytes),
            candidate: serverAddress, sessionID: 1)
        options.sendingSSRCs = plan.sendingSSRCs
        plan.accept(try SDPAnswer(answering: description, options: options).media)
        let peer = try MediaPeer(
            localCredentials: serverCredentials, remoteUfrag: clientCredentials.ufrag, certificate: certificate,
            expectedPeerFingerprint: clientCertificate.fingerprint, now: now)
        _ = core.addPeer(peer, session: session, user: user, ssrcs: Set(sections.compactMap(\.sendingSSRC)), plan: plan, now: now)
        let client = try MediaClientPeer(
            localCredentials: clientCredentials, certificate: clientCertificate,
            server: MediaServerEndpoint(credentials: serverCredentials, address: serverAddress, fingerprint: certificate.fingerprint),
            tieBreaker: UInt64(user))
        exchange(client.start(now: now).datagrams, user, client, core, now)
        guard client.isConnected else { throw ShellRoomError(message: "user \(user)'s media did not connect") }
        return client
    }
}

struct ShellRoomError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
