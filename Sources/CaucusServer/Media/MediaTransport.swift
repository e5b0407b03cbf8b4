import CaucusCore
import CaucusMedia
import CaucusStore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The server's media port: one UDP socket on one event loop, its peers, and the signalling
/// entry points that create and drop them. One DTLS certificate for the whole process,
/// generated at start; its fingerprint is in every answer.
///
/// One datagram channel for now (not one per event loop with SO_REUSEPORT): every peer lives
/// on that channel's loop, where `MediaPeerTable` is confined. The socket is bound to the
/// concrete address (`mediaBindAddress`, by default the announced one), never 0.0.0.0, so
/// replies leave from the address the peer checked (a wildcard socket lets the kernel pick
/// the source, and aiortc drops answers from an address it did not check).
final class MediaTransport: Sendable {
    /// The host candidate every answer announces: `--media-address` and the bound port.
    let candidate: TransportAddress
    let certificate: DTLSCertificate
    private let channel: any Channel
    private let handler: NIOLoopBound<MediaChannelHandler>
    private let consentTimeout: Duration
    private let setupTimeout: Duration

    private init(
        candidate: TransportAddress, certificate: DTLSCertificate, channel: any Channel,
        handler: NIOLoopBound<MediaChannelHandler>, consentTimeout: Duration, setupTimeout: Duration
    ) {
        self.candidate = candidate
        self.certificate = certificate
        self.channel = channel
        self.handler = handler
        self.consentTimeout = consentTimeout
        self.setupTimeout = setupTimeout
    }

    /// Binds the media port and generates the certificate.
    static func bind(_ configuration: ServerConfiguration, metrics: MediaMetrics) async throws -> MediaTransport {
        guard let announced = IPAddress(configuration.mediaAddress) else {
            throw MediaConfigurationError("--media-address must be an IPv4 or IPv6 address, not \"\(configuration.mediaAddress)\".")
        }
        let certificate = try DTLSCertificate.generate(commonName: "caucus")
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let tickInterval = TimeAmount(configuration.mediaTickInterval)
        let channel = try await DatagramBootstrap(group: eventLoop)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            // recvmmsg: up to this many datagrams per system call.
            .channelOption(.datagramVectorReadMessageCount, value: 32)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 2_048 * 32))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let table = MediaPeerTable(metrics: metrics)
                    try channel.pipeline.syncOperations.addHandler(MediaChannelHandler(table: table, metrics: metrics, tickInterval: tickInterval))
                }
            }
            .bind(host: configuration.mediaBindAddress ?? configuration.mediaAddress, port: configuration.mediaPort)
            .get()
        let handler = try await channel.eventLoop.submit {
            NIOLoopBound(try channel.pipeline.syncOperations.handler(type: MediaChannelHandler.self), eventLoop: channel.eventLoop)
        }.get()
        let port = UInt16(channel.localAddress?.port ?? configuration.mediaPort)
        return MediaTransport(
            candidate: TransportAddress(ip: announced, port: port), certificate: certificate, channel: channel,
            handler: handler, consentTimeout: configuration.mediaConsentTimeout, setupTimeout: .seconds(30))
    }

    /// Answers `key`'s offer and installs its peer, replacing the one it had. A refused offer
    /// changes nothing.
    ///
    /// The offer's sections where the server sends become the user's receive slots, and its
    /// sending sections its publications (`MediaSlotPlan`); `screenShareMids` names the video
    /// sections that carry screen share rather than camera video.
    func answer(offer sdp: String, for key: MediaPeerKey, screenShareMids: Set<String> = []) async throws(CaucusError) -> String {
        let offer: SessionDescription
        do {
            offer = try SessionDescription(parsing: sdp)
        } catch {
            throw CaucusError(.mediaOfferUnreadable, "The offer is not a session description this server reads: \(error).")
        }
        let credentials = ICECredentials.random()
        var plan = MediaSlotPlan(offer: offer, screenShareMids: screenShareMids) { UInt32.random(in: 1...UInt32.max) }
        var options = SDPAnswerOptions(
            iceUfrag: credentials.ufrag, icePwd: credentials.pwd,
            fingerprint: SDPFingerprint(algorithm: "sha-256", digest: certificate.fingerprint.bytes),
            candidate: candidate, sessionID: UInt64.random(in: 1...UInt64(Int64.max)))
        options.sendingSSRCs = plan.sendingSSRCs
        let answer: SDPAnswer
        do {
            answer = try SDPAnswer(answering: offer, options: options)
        } catch {
            throw CaucusError(.mediaOfferRefused, "The offer cannot be answered: \(error).")
        }
        plan.keep(acceptedMids: Set(answer.media.filter { $0.codec != nil }.map(\.mid)))
        let acceptedPlan = plan
        guard
            let fingerprint = answer.remoteFingerprints.lazy.compactMap({ DTLSFingerprint(sdpValue: "\($0.algorithm) \($0.value)") }).first
        else {
            throw CaucusError(.mediaOfferRefused, "The offer has no sha-256 fingerprint (a=fingerprint).")
        }
        let (certificate, remoteUfrag, consentTimeout, setupTimeout, handler) =
            (self.certificate, answer.remoteICEUfrag, self.consentTimeout, self.setupTimeout, self.handler)
        do {
            try await channel.eventLoop.submit {
                let now = MediaClock.now()
                let peer = try MediaPeer(
                    localCredentials: credentials, remoteUfrag: remoteUfrag, certificate: certificate,
                    expectedPeerFingerprint: fingerprint, now: now, consentTimeout: consentTimeout, setupTimeout: setupTimeout)
                let replaced = handler.value.table.add(peer, for: key, now: now)
                handler.value.router.addPeer(key, plan: acceptedPlan)
                handler.value.send(replaced)
            }.get()
        } catch {
            throw CaucusError.serverFailure
        }
        return answer.text
    }

    /// Closes `key`'s peer at once, if it has one (the user left, was removed, timed out).
    func drop(_ key: MediaPeerKey) {
        let handler = self.handler
        channel.eventLoop.execute {
            let closing = handler.value.table.remove(key, now: MediaClock.now())
            handler.value.router.removePeer(key)
            handler.value.send(closing)
        }
    }

    /// Hands the media loop a session's latest "who may receive what" (by subscriber, the
    /// streams it may receive, in the session's order) and its users' connections, for the
    /// slot maps. The loop reassigns slots and swaps in a new routing table.
    func route(_ session: StoredSessionID, eligible: [Int: [PublishedStream]], connections: [Int: ClientConnection]) {
        let handler = self.handler
        channel.eventLoop.execute {
            handler.value.router.update(session, eligible: eligible, connections: connections)
            handler.value.send([])
        }
    }

    /// Closes every peer of an ended session.
    func dropSession(_ session: StoredSessionID) {
        let handler = self.handler
        channel.eventLoop.execute {
            let closing = handler.value.table.removeSession(session, now: MediaClock.now())
            handler.value.router.removeSession(session)
            handler.value.send(closing)
        }
    }

    /// What the server knows of `key`'s peer: live, or closed on its own; nil if none.
    func stats(for key: MediaPeerKey) async -> MediaPeerTable.Stats? {
        let handler = self.handler
        return try? await channel.eventLoop.submit { handler.value.table.stats(for: key) }.get()
    }

    /// Datagrams no peer claimed since the port opened.
    func unclaimedDatagrams() async -> Int {
        let handler = self.handler
        return (try? await channel.eventLoop.submit { handler.value.table.unclaimed }.get()) ?? 0
    }

    /// Closes every peer (each gets a close_notify), then the socket.
    func close() async {
        let handler = self.handler
        try? await channel.eventLoop.submit { handler.value.send(handler.value.table.removeAll(now: MediaClock.now())) }.get()
        try? await channel.close()
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
