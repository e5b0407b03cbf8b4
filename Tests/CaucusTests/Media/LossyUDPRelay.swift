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
/// A cut of one client's path (`cut(serverUfrags:)`) drops only the datagrams of the client
/// addresses whose ICE checks name one of those server ufrags (the first half of a binding
/// request's USERNAME, RFC 8445 §7.2.2: the server's answer gave them to that client), both
/// ways; everyone else's pass.
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
        /// Datagrams dropped because their client's path was cut, both ways.
        var droppedByCut = 0
    }

    private let group: MultiThreadedEventLoopGroup
    private let listener: any Channel
    private let state: NIOLockedValueBox<State>

    struct State {
        var counts = Counts()
        var generator: SplitMix
        var downLoss: Double
        var blackout = false
        /// The server ufrag each client address's binding requests name.
        var serverUfrags: [SocketAddress: String] = [:]
        /// The server ufrags whose clients are cut off.
        var cutUfrags: Set<String> = []
        /// Sequence numbers dropped, by SSRC.
        var dropped: [UInt32: Set<UInt16>] = [:]
    }

    /// Listens on `listen`:`port` and relays to `upstream` on the same port number; with `port`
    /// 0, on a free port (`port` says which: the server's media port is then chosen to match).
    static func start(listen: String, port: Int, upstream: String, downLoss: Double, seed: UInt64) async throws -> LossyUDPRelay {
        let state = NIOLockedValueBox(State(generator: SplitMix(seed: seed), downLoss: downLoss))
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let listener = try await DatagramBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ListenHandler(upstream: upstream, state: state, group: group))
                }
            }
            .bind(host: listen, port: port).get()
        return LossyUDPRelay(group: group, listener: listener, state: state)
    }

    /// The port the relay listens on (and relays to).
    var port: Int { listener.localAddress?.port ?? 0 }

    /// Drops every datagram of the clients whose ICE checks name one of `serverUfrags`, both
    /// ways, until `restore()`: their paths went away, nobody else's.
    func cut(serverUfrags: Set<String>) { state.withLockedValue { $0.cutUfrags = serverUfrags } }

    func restore() { state.withLockedValue { $0.cutUfrags = [] } }

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

        let upstreamHost: String
        let state: NIOLockedValueBox<State>
        let group: MultiThreadedEventLoopGroup
        private var clients: [SocketAddress: any Channel] = [:]
        private var waiting: [SocketAddress: [ByteBuffer]] = [:]

        init(upstream: String, state: NIOLockedValueBox<State>, group: MultiThreadedEventLoopGroup) {
            self.upstreamHost = upstream
            self.state = state
            self.group = group
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            let client = envelope.remoteAddress
            let ufrag = serverUfrag(of: envelope.data.readableBytesView)
            let dropped = state.withLockedValue { state -> Bool in
                if let ufrag { state.serverUfrags[client] = ufrag }
                return state.dropsForCut(client)
            }
            if dropped { return }
            guard let port = context.channel.localAddress?.port, let upstream = try? SocketAddress(ipAddress: upstreamHost, port: port)
            else { return }
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
            let state = state
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
            if state.withLockedValue({ $0.dropsForCut(client) }) { return }
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

extension LossyUDPRelay.State {
    /// Whether `client`'s datagrams are dropped now: a blackout, or a cut of its path (counted).
    mutating func dropsForCut(_ client: SocketAddress) -> Bool {
        if blackout { return true }
        guard let ufrag = serverUfrags[client], cutUfrags.contains(ufrag) else { return false }
        counts.droppedByCut += 1
        return true
    }
}

/// The server's ufrag in a STUN binding request (RFC 5389: type 0x0001, the magic cookie;
/// USERNAME, attribute 0x0006, is "server:client" from a client), or nil for anything else.
private func serverUfrag(of bytes: ByteBufferView) -> String? {
    guard bytes.count >= 20, bytes[bytes.startIndex] == 0x00, bytes[bytes.startIndex + 1] == 0x01 else { return nil }
    let datagram = Array(bytes)
    guard datagram[4...7] == [0x21, 0x12, 0xA4, 0x42] else { return nil }
    var offset = 20
    while offset + 4 <= datagram.count {
        let type = Int(datagram[offset]) << 8 | Int(datagram[offset + 1])
        let length = Int(datagram[offset + 2]) << 8 | Int(datagram[offset + 3])
        guard offset + 4 + length <= datagram.count else { return nil }
        if type == 0x0006 {
            let username = datagram[(offset + 4)..<(offset + 4 + length)]
            return String(decoding: username.prefix { $0 != UInt8(ascii: ":") }, as: UTF8.self)
        }
        offset += 4 + (length + 3) / 4 * 4
    }
    return nil
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
