import CaucusCore
internal import CaucusMedia
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// One media peer of this user: its own UDP socket and event loop, and the handler that runs
/// the client-role stack on it. Made by ``MediaEngine`` after the server answered its offer.
final class MediaConnection: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let handler: NIOLoopBound<MediaChannelHandler>
    private let isOpen = NIOLockedValueBox(true)

    private init(group: MultiThreadedEventLoopGroup, channel: any Channel, handler: NIOLoopBound<MediaChannelHandler>) {
        self.group = group
        self.channel = channel
        self.handler = handler
    }

    /// The socket's options: none that shares the port. With SO_REUSEADDR, Linux may choose as
    /// "free" for a bind to port 0 a port that another socket with SO_REUSEADDR holds (a media
    /// server's on the same machine), and then one of the two gets the other's datagrams.
    static func socket(on loop: any EventLoop) -> DatagramBootstrap {
        DatagramBootstrap(group: loop)
    }

    /// Binds a socket, connects to the server the answer names, and returns once SRTP is
    /// keyed (or throws when ICE or DTLS fail, on their own schedules).
    static func open(
        offer: SDPOffer, videoCodec: MediaCodec, screenShareMids: Set<String>, certificate: DTLSCertificate, answer: SessionDescription,
        sending: [MediaKind: UInt32], deliver: @escaping @Sendable (RemoteFrame) -> Void,
        keyframeRequested: @escaping @Sendable (MediaKind) -> Void,
        lost: @escaping @Sendable () -> Void
    ) async throws(SessionError) -> MediaConnection {
        let server: MediaServerEndpoint
        do {
            server = try MediaServerEndpoint(answer: answer)
        } catch {
            throw .media("the server's answer has nothing to connect to: \(error)")
        }
        var slots: [UInt32: MediaChannelHandler.Slot] = [:]
        for (index, section) in offer.sections.enumerated() where section.direction.receives {
            guard let answered = answer.media.first(where: { $0.mid == String(index) }), answered.port != 0,
                let ssrc = answered.ssrcs.keys.first
            else { continue }
            let mid = String(index)
            let kind: MediaKind = section.kind == .audio ? .audio : screenShareMids.contains(mid) ? .screenShare : .video
            let levelID = answered.extmaps.first { $0.uri == RTPExtensionURI.audioLevel }?.id
            slots[ssrc] = MediaChannelHandler.Slot(
                mid: mid, kind: kind, user: nil,
                stream: ReceiveSlot(codec: section.kind == .audio ? .opus : videoCodec, audioLevelID: levelID))
        }
        // The level ID the answer kept on the section this client sends audio on, if any.
        let audioLevelID = offer.sections.indices.first { offer.sections[$0].kind == .audio && offer.sections[$0].direction.sends }
            .flatMap { index in answer.media.first { $0.mid == String(index) } }?
            .extmaps.first { $0.uri == RTPExtensionURI.audioLevel }?.id
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        do {
            let address = try SocketAddress(ipAddress: server.address.ip.description, port: Int(server.address.port))
            let connected = loop.makePromise(of: Void.self)
            let receiveSlots = slots
            // The peer is made on the loop that owns it from then on.
            let handler = try await loop.submit {
                let peer = try MediaClientPeer(
                    localCredentials: offer.credentials, certificate: certificate, server: server, tieBreaker: .random(in: 1...UInt64.max))
                return NIOLoopBound(
                    MediaChannelHandler(
                        peer: peer, serverAddress: address,
                        sending: sending.reduce(into: [:]) {
                            $0[$1.key] = SendStream(codec: $1.key == .audio ? .opus : videoCodec, ssrc: $1.value, audioLevelID: audioLevelID)
                        }, slots: receiveSlots,
                        connected: connected, deliver: deliver, keyframeRequested: keyframeRequested, lost: lost),
                    eventLoop: loop)
            }.get()
            let anyAddress: String
            if case .v4 = server.address.ip { anyAddress = "0.0.0.0" } else { anyAddress = "::" }
            let channel = try await Self.socket(on: loop)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler.value) }
                }
                .bind(host: anyAddress, port: 0).get()
            let connection = MediaConnection(group: group, channel: channel, handler: handler)
            do {
                try await connected.futureResult.get()
            } catch {
                await connection.close()
                throw error
            }
            return connection
        } catch let error as SessionError {
            try? await group.shutdownGracefully()
            throw error
        } catch {
            try? await group.shutdownGracefully()
            throw .media("the media connection failed: \(error)")
        }
    }

    /// Packetises and sends one frame, on the connection's loop (the caller does not wait:
    /// frames are checked before they get here, see ``MediaEngine/send(_:)``).
    func send(_ frame: EncodedFrame, as kind: MediaKind) {
        onLoop { try? $0.send(frame, as: kind) }
    }

    /// Who fills each receive slot now, by mid.
    func apply(_ map: [String: UserID?]) {
        onLoop { $0.apply(map) }
    }

    /// Whether received audio reaches the app.
    func deliverAudio(_ on: Bool) {
        onLoop { $0.deliversAudio = on }
    }

    /// Ends the peer and frees the socket and the loop. Once; later calls return at once.
    func close() async {
        let wasOpen = isOpen.withLockedValue { open in
            defer { open = false }
            return open
        }
        guard wasOpen else { return }
        try? await channel.eventLoop.submit { [handler] in handler.value.close() }.get()
        try? await channel.closeFuture.get()
        try? await group.shutdownGracefully()
    }

    /// Runs `body` on the loop, unless the connection is closed: a loop that has shut down
    /// must not be given work. The lock is held while the work is queued, so `close` cannot
    /// shut the loop down in between.
    private func onLoop(_ body: @escaping @Sendable (MediaChannelHandler) -> Void) {
        isOpen.withLockedValue { open in
            guard open else { return }
            channel.eventLoop.execute { [handler] in body(handler.value) }
        }
    }
}
