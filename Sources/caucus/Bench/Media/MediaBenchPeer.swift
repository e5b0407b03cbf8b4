import CaucusMedia
import NIOCore
import NIOPosix

/// One synthetic user's media for `caucus bench media`: its own UDP socket and a
/// ``MediaClientPeer`` (the client-role stack) connected to the server's media port; or, for
/// the floor, plain datagrams to the bare relay. It sends Opus-sized packets whose payload
/// starts with its index, so a receiver can tell whose audio reached it.
///
/// Confined to its channel's event loop; the bench reaches it through `MediaBenchPeers`.
final class MediaBenchPeer: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    enum Target {
        case idle
        /// SRTP to the server through the peer (at its address, kept as NIO's).
        case server(MediaClientPeer, SocketAddress)
        /// Plain datagrams to the relay.
        case relay(SocketAddress)
    }

    let index: Int
    let ssrc: UInt32
    let payloadBytes: Int
    private var target = Target.idle
    private var context: ChannelHandlerContext?
    private var sequenceNumber: UInt16 = 0
    private var timestamp: UInt32 = 0
    private var connected: EventLoopPromise<Void>?
    private var deadline: Scheduled<Void>?
    private var scheduledFor: Duration?

    /// Packets sent, and received from the server or the relay (and whose), since the last reset.
    private(set) var sent = 0
    private(set) var received = 0
    private(set) var publishersHeard: Set<Int> = []
    /// The publishers whose audio marks the end of a move, and when the first arrived.
    private var awaited: Set<Int> = []
    private(set) var firstAwaitedAt: NIODeadline?

    init(index: Int, ssrc: UInt32, payloadBytes: Int) {
        self.index = index
        self.ssrc = ssrc
        self.payloadBytes = payloadBytes
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    // MARK: - Driven by the bench, on the loop

    /// Connects to the server with the client-role stack; the promise completes once SRTP is keyed.
    func connect(
        credentials: ICECredentials, certificate: DTLSCertificate, server: MediaServerEndpoint, promise: EventLoopPromise<Void>
    ) throws {
        let peer = try MediaClientPeer(localCredentials: credentials, certificate: certificate, server: server, tieBreaker: .random(in: 1...UInt64.max))
        target = .server(peer, try SocketAddress(ipAddress: peer.server.address.ip.description, port: Int(peer.server.address.port)))
        connected = promise
        send(peer.start(now: Self.now()).datagrams)
        scheduleDeadline()
    }

    func useRelay(_ relay: SocketAddress) {
        target = .relay(relay)
        // Three hellos: the relay learns this peer's address from them (loopback loses none
        // unless the relay's socket is full, and a lost one would only lower the floor's count).
        for _ in 0..<3 { write(helloDatagram(), to: relay) }
        context?.flush()
    }

    func resetCounts() {
        sent = 0
        received = 0
        publishersHeard = []
    }

    func await(publishers: Set<Int>) {
        awaited = publishers
        firstAwaitedAt = nil
    }

    /// One packet of this user's audio, written but not flushed (the loop's sender flushes
    /// every peer's socket once per tick).
    func sendAudio() {
        sequenceNumber &+= 1
        timestamp &+= 960
        var packet = [UInt8](repeating: 0, count: 12 + payloadBytes)
        packet[0] = 0x80
        packet[1] = SDPOffer.opusPayloadType
        packet[2] = UInt8(sequenceNumber >> 8)
        packet[3] = UInt8(sequenceNumber & 0xFF)
        for byte in 0..<4 {
            packet[4 + byte] = UInt8(truncatingIfNeeded: timestamp >> (24 - 8 * byte))
            packet[8 + byte] = UInt8(truncatingIfNeeded: ssrc >> (24 - 8 * byte))
            packet[12 + byte] = UInt8(truncatingIfNeeded: UInt32(index) >> (24 - 8 * byte))
        }
        switch target {
        case .idle: return
        case .server(let peer, let address):
            guard let datagram = peer.protect(rtp: packet) else { return }
            write(datagram.bytes, to: address)
            sent += 1
        case .relay(let relay):
            // As long as the SRTP packet would be: the 16-byte tag of AES-GCM.
            write(packet + [UInt8](repeating: 0, count: 16), to: relay)
            sent += 1
        }
    }

    func flush() { context?.flush() }

    // MARK: - Channel

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        let bytes = [UInt8](envelope.data.readableBytesView)
        switch target {
        case .idle: return
        case .server(let peer, let address):
            // Anything not from the server's address is a stranger: the peer drops it.
            let source = envelope.remoteAddress == address ? peer.server.address : TransportAddress(ip: .v4(0), port: 0)
            let output = peer.receive(bytes, from: source, now: Self.now())
            send(output.datagrams)
            for event in output.events {
                switch event {
                case .connected:
                    connected?.succeed()
                    connected = nil
                case .rtp(let packet): heard(packet)
                case .rtcp, .closed: continue
                }
            }
            scheduleDeadline()
        case .relay:
            heard(bytes)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {}

    // MARK: - Private

    private func heard(_ packet: [UInt8]) {
        guard packet.count >= 16 else { return }
        received += 1
        let publisher = Int(UInt32(packet[12]) << 24 | UInt32(packet[13]) << 16 | UInt32(packet[14]) << 8 | UInt32(packet[15]))
        publishersHeard.insert(publisher)
        if firstAwaitedAt == nil, awaited.contains(publisher) { firstAwaitedAt = .now() }
    }

    private func helloDatagram() -> [UInt8] {
        [0x48, 0x45, 0x4C, 0x4F] + (0..<4).map { UInt8(truncatingIfNeeded: UInt32(index) >> (24 - 8 * $0)) }
    }

    /// Runs the peer's next deadline on time; a no-op when it has not moved (most packets).
    private func scheduleDeadline() {
        guard case .server(let peer, _) = target, let context, peer.nextDeadline != scheduledFor else { return }
        deadline?.cancel()
        scheduledFor = peer.nextDeadline
        guard let next = scheduledFor else { return }
        let wait = max(.zero, next - Self.now())
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(wait.components.seconds) * 1_000_000_000 + wait.components.attoseconds / 1_000_000_000)) {
            bound.value.handleDeadline()
        }
    }

    private func handleDeadline() {
        scheduledFor = nil
        guard case .server(let peer, _) = target else { return }
        send(peer.handleTimeout(now: Self.now()).datagrams)
        if case .closed(let reason) = peer.state {
            connected?.fail(BenchError("user \(index)'s media closed: \(reason)"))
            connected = nil
        }
        scheduleDeadline()
    }

    /// What the peer answers goes to the server (its only destination), flushed at once.
    private func send(_ datagrams: [AddressedDatagram]) {
        guard case .server(_, let address) = target, let context, !datagrams.isEmpty else { return }
        for datagram in datagrams { write(datagram.bytes, to: address) }
        context.flush()
    }

    private func write(_ bytes: [UInt8], to address: SocketAddress) {
        guard let context else { return }
        context.write(wrapOutboundOut(AddressedEnvelope(remoteAddress: address, data: context.channel.allocator.buffer(bytes: bytes))), promise: nil)
    }

    static func now() -> Duration { .nanoseconds(Int64(NIODeadline.now().uptimeNanoseconds)) }
}
