import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A lossy UDP relay between SDK clients and the server's media port, for the loss tests.
///
/// The server binds 127.0.0.1:P and announces 127.0.0.2:P; the relay listens on 127.0.0.2:P
/// and opens, per client address, its own upstream socket to 127.0.0.1:P, so the server sees
/// one address per client and each client sees answers from the address it was given. RTP
/// from the server to the clients is dropped at random with probability `downLoss` (a seeded
/// generator, so a run is repeatable); STUN, DTLS and RTCP always pass. During a blackout
/// (`blackout = true`) nothing passes either way: a path that went away.
///
/// SRTP leaves the RTP header in the clear, so the relay can tell a repair: a packet of a
/// stream (SSRC) with a sequence number it dropped before, sent again by the server because
/// the client asked (the SDK's NACK), counted in `repairsOfDropped`.
///
/// Everything runs on one event loop of its own.
final class LossyUDPRelay: Sendable {
    struct Counts: Sendable {
        var forwardedDown = 0
        var droppedDown = 0
        var repairsOfDropped = 0
    }

    private let group: MultiThreadedEventLoopGroup
    private let listener: any Channel
    private let state: NIOLockedValueBox<State>

    struct State {
        var counts = Counts()
        var generator: SplitMix
        var downLoss: Double
        var blackout = false
        /// Sequence numbers dropped, by SSRC.
        var dropped: [UInt32: Set<UInt16>] = [:]
    }

    static func start(listen: String, port: Int, upstream: String, downLoss: Double, seed: UInt64) async throws -> LossyUDPRelay {
        let state = NIOLockedValueBox(State(generator: SplitMix(seed: seed), downLoss: downLoss))
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let upstreamAddress = try SocketAddress(ipAddress: upstream, port: port)
        let listener = try await DatagramBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ListenHandler(upstream: upstreamAddress, state: state, group: group))
                }
            }
            .bind(host: listen, port: port).get()
        return LossyUDPRelay(group: group, listener: listener, state: state)
    }

    private init(group: MultiThreadedEventLoopGroup, listener: any Channel, state: NIOLockedValueBox<State>) {
        self.group = group
        self.listener = listener
        self.state = state
    }

    var counts: Counts { state.withLockedValue { $0.counts } }

    /// While true, every datagram both ways is dropped.
    var blackout: Bool {
        get { state.withLockedValue { $0.blackout } }
        set { state.withLockedValue { $0.blackout = newValue } }
    }

    func stop() async {
        try? await listener.close()
        try? await group.shutdownGracefully()
    }

    /// Client → server: each client gets its own upstream socket; what comes back goes to it.
    private final class ListenHandler: ChannelInboundHandler {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        typealias OutboundOut = AddressedEnvelope<ByteBuffer>

        let upstream: SocketAddress
        let state: NIOLockedValueBox<State>
        let group: MultiThreadedEventLoopGroup
        private var clients: [SocketAddress: any Channel] = [:]
        private var waiting: [SocketAddress: [ByteBuffer]] = [:]

        init(upstream: SocketAddress, state: NIOLockedValueBox<State>, group: MultiThreadedEventLoopGroup) {
            self.upstream = upstream
            self.state = state
            self.group = group
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            let client = envelope.remoteAddress
            if state.withLockedValue({ $0.blackout }) { return }
            if let channel = clients[client] {
                channel.writeAndFlush(AddressedEnvelope(remoteAddress: upstream, data: envelope.data), promise: nil)
                return
            }
            if waiting[client] != nil {
                waiting[client]?.append(envelope.data)
                return
            }
            waiting[client] = [envelope.data]
            let listener = context.channel
            let (state, upstream) = (state, upstream)
            let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
            DatagramBootstrap(group: context.eventLoop)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            UpstreamHandler(client: client, listener: listener, state: state))
                    }
                }
                .bind(host: "127.0.0.1", port: 0)
                .whenSuccess { channel in
                    let handler = bound.value
                    handler.clients[client] = channel
                    for data in handler.waiting.removeValue(forKey: client) ?? [] {
                        channel.write(AddressedEnvelope(remoteAddress: upstream, data: data), promise: nil)
                    }
                    channel.flush()
                }
        }
    }

    /// Server → one client, losing RTP at random.
    private final class UpstreamHandler: ChannelInboundHandler {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>

        let client: SocketAddress
        let listener: any Channel
        let state: NIOLockedValueBox<State>

        init(client: SocketAddress, listener: any Channel, state: NIOLockedValueBox<State>) {
            self.client = client
            self.listener = listener
            self.state = state
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            if state.withLockedValue({ $0.blackout }) { return }
            let bytes = envelope.data.readableBytesView
            let isRTP = bytes.count >= 12 && (128...191).contains(bytes[bytes.startIndex])
                && !(192...223).contains(bytes[bytes.startIndex + 1])
            if isRTP {
                let start = bytes.startIndex
                let sequence = UInt16(bytes[start + 2]) << 8 | UInt16(bytes[start + 3])
                let ssrc = bytes[(start + 8)..<(start + 12)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                let drop = state.withLockedValue { state -> Bool in
                    if state.dropped[ssrc]?.remove(sequence) != nil { state.counts.repairsOfDropped += 1 }
                    guard state.generator.nextUnit() < state.downLoss else {
                        state.counts.forwardedDown += 1
                        return false
                    }
                    state.dropped[ssrc, default: []].insert(sequence)
                    state.counts.droppedDown += 1
                    return true
                }
                if drop { return }
            }
            listener.writeAndFlush(AddressedEnvelope(remoteAddress: client, data: envelope.data), promise: nil)
        }
    }
}

/// SplitMix64: a small seeded generator, so a lossy run drops the same packets each time.
struct SplitMix: Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// In [0, 1).
    mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
