import CaucusCore
import CaucusMedia
import CaucusSFU
import CaucusProtocol
import CaucusRecording
import CaucusStore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server's media port: one UDP port served by one datagram channel per event loop
/// (`--media-loops`, `SO_REUSEPORT`), their peers, and the signalling entry points that create
/// and drop them. One DTLS certificate for the whole process, generated at start; its
/// fingerprint is in every answer.
///
/// A session's peers all live on one shard's loop (`MediaShard.index(of:among:)`), where its
/// `MediaPeerTable` and router are confined, so forwarding needs no lock. The sockets are bound
/// to the concrete address (`mediaBindAddress`, by default the announced one), never 0.0.0.0,
/// so replies leave from the address the peer checked (a wildcard socket lets the kernel pick
/// the source, and aiortc drops answers from an address it did not check).
final class MediaTransport: Sendable {
    /// The host candidate every answer announces: `--media-address` and the bound port.
    let candidate: TransportAddress
    /// The passive ICE-TCP candidate, when enabled: the same address, the TCP port.
    let tcpCandidate: TransportAddress?
    let certificate: DTLSCertificate
    private let shards: [MediaShard]
    private let tcpListener: (any Channel)?
    private let consentTimeout: Duration
    private let setupTimeout: Duration
    /// Peers that connected or ended on their own, for the sessions (`MediaPeerLife`).
    let life: MediaPeerLife
    /// Where recordings go, the apps' quota, and recordings stopped on their own.
    let recording: RecordingContext

    private init(
        candidate: TransportAddress, tcp: (candidate: TransportAddress, listener: any Channel)?, certificate: DTLSCertificate,
        shards: [MediaShard], consentTimeout: Duration, setupTimeout: Duration, life: MediaPeerLife, recording: RecordingContext
    ) {
        self.life = life
        self.recording = recording
        self.candidate = candidate
        self.tcpCandidate = tcp?.candidate
        self.tcpListener = tcp?.listener
        self.certificate = certificate
        self.shards = shards
        self.consentTimeout = consentTimeout
        self.setupTimeout = setupTimeout
    }

    /// How many channels serve the port.
    var loopCount: Int { shards.count }

    /// The shard that serves `session`'s peers.
    func shardIndex(of session: StoredSessionID) -> Int { MediaShard.index(of: session, among: shards.count) }

    private func shard(of session: StoredSessionID) -> MediaShard { shards[shardIndex(of: session)] }

    /// Binds the media port (one channel per loop, the first choosing the port when it is 0)
    /// and generates the certificate.
    /// Each media socket's receive and send buffer asked of the kernel.
    static let socketBufferBytes = 4 << 20
    /// The media tick intervals a server takes (`ServerConfiguration.mediaTickInterval`).
    static let tickIntervals: ClosedRange<Duration> = .milliseconds(1)...(.seconds(60))

    static func bind(_ configuration: ServerConfiguration, metrics: MediaMetrics, logger: Logger) async throws -> MediaTransport {
        guard let announced = IPAddress(configuration.mediaAddress) else {
            throw MediaConfigurationError("--media-address must be an IPv4 or IPv6 address, not \"\(configuration.mediaAddress)\".")
        }
        guard configuration.mediaLoops >= 1 else { throw MediaConfigurationError("--media-loops must be at least 1.") }
        guard configuration.mediaRoutingSlice >= 1 else { throw MediaConfigurationError("The media routing slice must be at least 1.") }
        // The engines' periodic work and the peers' sweep run on it (`PeriodicSchedule`).
        guard Self.tickIntervals.contains(configuration.mediaTickInterval) else {
            throw MediaConfigurationError("The media tick interval must be from 1 ms to 60 s, not \(configuration.mediaTickInterval).")
        }
        let routingSlice = configuration.mediaRoutingSlice
        let certificate = try DTLSCertificate.generate(commonName: "caucus")
        let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
        let tickInterval = configuration.mediaTickInterval
        guard
            let segmentationOffload = configuration.mediaSegmentationOffload.isUsed(
                kernelRelease: MediaSegmentationOffload.runningKernelRelease, supported: System.supportsUDPSegmentationOffload)
        else { throw MediaConfigurationError("--media-gso on needs Linux 4.18 or later (UDP_SEGMENT); auto or off work anywhere.") }
        metrics.segmentationOffload.record(segmentationOffload ? 1 : 0)
        let host = configuration.mediaBindAddress ?? configuration.mediaAddress
        var port = try await exclusivePort(host: host, port: configuration.mediaPort, on: loops[0])
        let life = MediaPeerLife()
        let recording = RecordingContext(
            layout: RecordingLayout(dataDirectory: configuration.dataDirectory), quota: RecordingQuota(limit: configuration.recordingQuota),
            logger: logger)
        var shards: [MediaShard] = []
        do {
            for index in 0..<configuration.mediaLoops {
                // SO_REUSEPORT alone: the shards share the port, and nobody else. With
                // SO_REUSEADDR too, Linux counted the port as free for any other socket with
                // SO_REUSEADDR binding port 0 (a client on this machine; the SDK's was one), whose
                // datagrams to the server then came back to the server itself.
                let channel = try await DatagramBootstrap(group: loops[index % loops.count])
                    .channelOption(.socket(SocketOptionLevel(SOL_SOCKET), SO_REUSEPORT), value: 1)
                    // recvmmsg: up to this many datagrams per system call.
                    .channelOption(.datagramVectorReadMessageCount, value: 32)
                    // Room for a burst: with the kernel's default (about 200 KiB) a loop busy with
                    // a thousand users' packets lets the socket overflow, and the STUN consent
                    // checks dropped with the media close their peers. The kernel caps the size at
                    // net.core.rmem_max / wmem_max (docs/media-transport.md).
                    .channelOption(.socketOption(.so_rcvbuf), value: Self.socketBufferBytes)
                    .channelOption(.socketOption(.so_sndbuf), value: Self.socketBufferBytes)
                    .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 2_048 * 32))
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            let table = MediaPeerTable(metrics: metrics)
                            table.onLife = { key, peer, alive in life.report(key, peer: peer, alive: alive) }
                            let handler = MediaChannelHandler(
                                shard: index, table: table, metrics: metrics, tickInterval: tickInterval,
                                segmentationOffload: segmentationOffload, routingSlice: routingSlice, recording: recording, logger: logger)
                            try channel.pipeline.syncOperations.addHandler(handler)
                        }
                    }
                    .bind(host: host, port: port)
                    .get()
                port = channel.localAddress?.port ?? port
                let handler = try await channel.eventLoop.submit {
                    NIOLoopBound(try channel.pipeline.syncOperations.handler(type: MediaChannelHandler.self), eventLoop: channel.eventLoop)
                }.get()
                shards.append(MediaShard(index: index, channel: channel, handler: handler))
            }
        } catch {
            for shard in shards { try? await shard.channel.close() }
            throw error
        }
        let all = shards
        for shard in shards {
            try await shard.eventLoop.submit { shard.handler.value.shards = all }.get()
        }
        var tcp: (candidate: TransportAddress, listener: any Channel)?
        if let tcpPort = configuration.mediaTCPPort {
            let listener: any Channel
            do {
                listener = try await MediaTCPListener.bind(
                    host: host, port: tcpPort == 0 ? port : tcpPort, shards: all, limits: configuration.mediaTCPLimits)
            } catch where tcpPort == 0 {
                // The UDP port's number is taken for TCP: any free port does, the answer says which.
                listener = try await MediaTCPListener.bind(host: host, port: 0, shards: all, limits: configuration.mediaTCPLimits)
            } catch {
                for shard in shards { try? await shard.channel.close() }
                throw error
            }
            tcp = (TransportAddress(ip: announced, port: UInt16(listener.localAddress?.port ?? 0)), listener)
        }
        return MediaTransport(
            candidate: TransportAddress(ip: announced, port: UInt16(port)), tcp: tcp, certificate: certificate, shards: shards,
            consentTimeout: configuration.mediaConsentTimeout, setupTimeout: .seconds(30), life: life, recording: recording)
    }

    /// The port to share among the shards, bound once without `SO_REUSEPORT` first: the shards'
    /// sockets would join any other process of the same user already sharing that port (two
    /// servers given the same `--media-port` would split each other's traffic), so a port in use
    /// is refused here, and port 0 gets one nobody else holds.
    private static func exclusivePort(host: String, port: Int, on eventLoop: any EventLoop) async throws -> Int {
        let probe = try await DatagramBootstrap(group: eventLoop).bind(host: host, port: port).get()
        let bound = probe.localAddress?.port ?? port
        try await probe.close()
        return bound
    }

    /// Answers `key`'s offer and installs its peer, replacing the one it had. A refused offer
    /// changes nothing.
    ///
    /// The offer's sections where the server sends become the user's receive slots, and its
    /// sending sections its publications (`MediaSlotPlan`); `screenShareMids` names the video
    /// sections that carry screen share rather than camera video.
    func answer(offer sdp: String, for key: MediaPeerKey, screenShareMids: Set<String> = []) async throws(CaucusError) -> MediaAnswer {
        let offer: SessionDescription
        do {
            offer = try SessionDescription(parsing: sdp)
        } catch {
            throw CaucusError(.mediaOfferUnreadable, "The offer is not a session description this server reads: \(error).")
        }
        let shard = shard(of: key.session)
        let credentials = MediaShard.credentials(for: shard.index)
        var plan = MediaSlotPlan(offer: offer, screenShareMids: screenShareMids) { UInt32.random(in: 1...UInt32.max) }
        var options = SDPAnswerOptions(
            iceUfrag: credentials.ufrag, icePwd: credentials.pwd,
            fingerprint: SDPFingerprint(algorithm: "sha-256", digest: certificate.fingerprint.bytes),
            candidate: candidate, sessionID: UInt64.random(in: 1...UInt64(Int64.max)))
        options.tcpCandidate = tcpCandidate
        options.sendingSSRCs = plan.sendingSSRCs
        options.retransmissionSSRCs = plan.retransmissionSSRCs
        let answer: SDPAnswer
        do {
            answer = try SDPAnswer(answering: offer, options: options)
        } catch {
            throw CaucusError(.mediaOfferRefused, "The offer cannot be answered: \(error).")
        }
        plan.accept(answer.media)
        let acceptedPlan = plan
        let sendingSSRCs = Set(offer.media.filter { $0.port != 0 && $0.direction.sends }.flatMap { $0.ssrcs.keys })
        guard
            let fingerprint = answer.remoteFingerprints.lazy.compactMap({ DTLSFingerprint(sdpValue: "\($0.algorithm) \($0.value)") }).first
        else {
            throw CaucusError(.mediaOfferRefused, "The offer has no sha-256 fingerprint (a=fingerprint).")
        }
        let number = UInt64.random(in: 1...UInt64.max)
        let (certificate, remoteUfrag, consentTimeout, setupTimeout, handler) =
            (self.certificate, answer.remoteICEUfrag, self.consentTimeout, self.setupTimeout, shard.handler)
        let taken: UInt32?
        do {
            taken = try await shard.eventLoop.submit { () throws -> UInt32? in
                // Checked where the peers are, in the same turn that adds this one.
                if let taken = handler.value.core.table.ssrcSentByAnother(of: sendingSSRCs, for: key) { return taken }
                let now = MediaClock.now()
                let peer = try MediaPeer(
                    localCredentials: credentials, remoteUfrag: remoteUfrag, certificate: certificate,
                    expectedPeerFingerprint: fingerprint, now: now, consentTimeout: consentTimeout, setupTimeout: setupTimeout)
                let replaced = handler.value.core.addPeer(peer, for: key, number: number, ssrcs: sendingSSRCs, plan: acceptedPlan, now: now)
                handler.value.send(replaced)
                handler.value.continueRouting()
                return nil
            }.get()
        } catch {
            throw CaucusError.serverFailure
        }
        if let taken {
            throw CaucusError(
                .mediaOfferRefused,
                "The offer sends from SSRC \(taken), which another user in this session sends from: offer again with SSRCs of your own.")
        }
        return MediaAnswer(sdp: answer.text, peer: number, emptySlots: acceptedPlan.receiveSlots.map { MediaSlot(mid: $0.mid, kind: $0.slot.kind.rawValue, user: nil) })
    }

    /// Closes `key`'s peer at once, if it has one (the user left, was removed, timed out).
    func drop(_ key: MediaPeerKey) {
        shard(of: key.session).execute { handler in
            handler.send(handler.core.removePeer(key, now: MediaClock.now()))
            handler.continueRouting()
        }
    }

    /// Hands the media loop a session's routing for the users whose eligibility changed (see
    /// `MediaHandover`). The loop recomputes those users' slots and changes their routes
    /// between two packets (the packet path runs on the same loop, so it never sees half a
    /// user's change); a large handover in slices, forwarding in between, with what it forbids
    /// cut for everyone at once.
    func route(_ session: StoredSessionID, _ handover: MediaHandover) {
        shard(of: session).execute { handler in
            handler.router.update(session, handover, now: MediaClock.now())
            handler.send([])
            handler.continueRouting()
        }
    }

    /// The two halves of `route` around the delivery of the events that explain a handover:
    /// `switchRouting` before the events are queued (the media loop recomputes the users named
    /// and forwards their new sources at once, holding their slot maps), `releaseSlotMaps`
    /// after. The loop runs them in order, and the second queues the slot maps on each
    /// connection's loop behind the events, so a slot map still never precedes its events;
    /// only the media itself no longer waits behind the events' writes (a breakout's start
    /// writes one large `statusChanged` to every connection).
    func switchRouting(_ session: StoredSessionID, _ handover: MediaHandover) {
        shard(of: session).execute { handler in
            handler.router.update(session, handover, holdingSlotMaps: true, now: MediaClock.now())
            handler.send([])
            handler.continueRouting()
        }
    }

    func releaseSlotMaps(_ session: StoredSessionID) {
        shard(of: session).execute { handler in
            handler.router.releaseSlotMaps(session)
        }
    }

    /// Hands the media loop a session's recording picture (`SessionRecorder`).
    func record(_ session: StoredSessionID, _ handover: RecordingHandover) {
        shard(of: session).execute { handler in
            handler.router.record(session, handover, now: MediaClock.now())
            handler.send([])
        }
    }

    /// Closes every peer of a session that ended or left this node; its recording ends with
    /// `reason` (`ended`, or `leaseLost`: another node records on).
    func dropSession(_ session: StoredSessionID, reason: String = "ended") {
        shard(of: session).execute { handler in
            handler.send(handler.core.removeSession(session, recordingStop: reason, now: MediaClock.now()))
        }
    }

    /// Ends a session's recording on the media loop, its peers left as they are: the session
    /// closed without ending (its store failed), and what it records once rebuilt from the
    /// store is for it to say again. Left running, the loop would go on recording its last
    /// picture, which the rebuilt session, whose recording may not have been stored, never
    /// corrects.
    func stopRecording(of session: StoredSessionID, reason: String) {
        shard(of: session).execute { handler in
            handler.router.stopRecording(of: session, reason: reason, now: MediaClock.now())
            handler.send([])
        }
    }

    /// What the server knows of `key`'s peer: live, or closed on its own; nil if none.
    func stats(for key: MediaPeerKey) async -> MediaPeerTable.Stats? {
        let shard = shard(of: key.session)
        return try? await shard.eventLoop.submit { shard.handler.value.table.stats(for: key) }.get()
    }

    /// How many times `session`'s routing was recomputed (each recomputation of some users'
    /// slots), or nil when the media loop routes nothing for it.
    func routingRecomputations(of session: StoredSessionID) async -> Int? {
        let shard = shard(of: session)
        return try? await shard.eventLoop.submit { shard.handler.value.router.recomputations(of: session) }.get()
    }

    /// Datagrams no peer claimed since the port opened, on every shard.
    func unclaimedDatagrams() async -> Int {
        var total = 0
        for shard in shards {
            total += (try? await shard.eventLoop.submit { shard.handler.value.table.unclaimed }.get()) ?? 0
        }
        return total
    }

    /// Datagrams that reached a socket of another loop than their peer's and were handed over.
    func handedOverDatagrams() async -> Int {
        var total = 0
        for shard in shards {
            total += (try? await shard.eventLoop.submit { shard.handler.value.handedOver }.get()) ?? 0
        }
        return total
    }

    /// Datagrams that left in runs the kernel cut up (`SegmentationPlan`), and whether the
    /// media port sends such runs at all.
    func segmentedDatagrams() async -> (count: Int, offloading: Bool) {
        var total = 0
        var offloading = false
        for shard in shards {
            let (count, used) = (try? await shard.eventLoop.submit { (shard.handler.value.segmentedDatagrams, shard.handler.value.segmentationOffload) }.get()) ?? (0, false)
            total += count
            offloading = offloading || used
        }
        return (total, offloading)
    }

    /// Closes the shards' sockets as a write error would, without telling them (tests).
    func breakSockets() async {
        for shard in shards { try? await shard.channel.close() }
    }

    /// Closes every peer (each gets a close_notify), then the sockets.
    func close() async {
        try? await tcpListener?.close()
        for shard in shards {
            try? await shard.eventLoop.submit {
                shard.handler.value.isClosing = true
                shard.handler.value.router.stopRecording(now: MediaClock.now())
                shard.handler.value.send(shard.handler.value.table.removeAll(now: MediaClock.now()))
            }.get()
            try? await shard.channel.close()
        }
        // The recordings' last writes, which the shards handed to the writer, before the
        // server goes on to stop.
        await recording.writer.drain()
    }
}

/// Closes the media port when the server stops.
struct MediaService: Service {
    let transport: MediaTransport

    func run() async throws {
        try? await gracefulShutdown()
        await transport.close()
    }
}

struct MediaConfigurationError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
