import CaucusMedia
import NIOCore
import NIOExtras
import NIOConcurrencyHelpers
import NIOPosix

/// ICE over TCP (RFC 6544) for peers whose network blocks UDP: a passive TCP candidate on the
/// media address, each connection carrying the same STUN, DTLS and SRTP as a UDP peer would
/// send, framed by RFC 4571 (a two-byte length before each packet). A connection's packets go
/// to the shard its first binding request names (the ufrag's shard prefix), where its peer
/// lives; there the connection's remote address is the peer's address like any other, and
/// what the peer is sent goes back on the connection (`MediaChannelHandler`).
///
/// A connection anyone can open holds a descriptor from its first byte, so it has a deadline
/// and a ceiling from then on (``MediaTCPLimits``): a binding request naming a shard within
/// ``MediaTCPLimits/firstRequestDeadline``, then something read at least every
/// ``MediaTCPLimits/idleTimeout``; at most ``MediaTCPLimits/maximumConnections`` at once, and
/// ``MediaTCPLimits/maximumPerAddress`` from one IP address. What a peer is sent waits in its
/// connection's buffer up to its high water mark (1 MiB); past it, like a full UDP socket, it is dropped.
enum MediaTCPListener {
    /// Binds the listener; `port` 0 picks a free one.
    static func bind(host: String, port: Int, shards: [MediaShard], limits: MediaTCPLimits) async throws -> any Channel {
        let admission = MediaTCPAdmission(limits: limits)
        return try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            // Room for a burst (a keyframe of a few hundred packets) but not for a peer that
            // stops reading: past the high mark, what it is sent is dropped (`MediaTCPConnection`).
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 256 << 10, high: 1 << 20))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        IdleStateHandler(readTimeout: TimeAmount(limits.idleTimeout)),
                        ByteToMessageHandler(LengthFieldBasedFrameDecoder(lengthFieldBitLength: .twoBytes)),
                        LengthFieldPrepender(lengthFieldBitLength: .twoBytes),
                        MediaTCPConnectionHandler(shards: shards, admission: admission, firstRequestDeadline: limits.firstRequestDeadline),
                    ])
                }
            }
            .bind(host: host, port: port)
            .get()
    }
}

/// What ICE-TCP connections may hold, and for how long (docs/media-transport.md).
public struct MediaTCPLimits: Sendable, Hashable {
    /// Until the connection's first binding request that names a shard: a stranger's
    /// connection is given no longer.
    public var firstRequestDeadline: Duration = .seconds(10)
    /// Nothing read for this long closes a connection (its peer checks consent every few
    /// seconds; a consent that lapsed ends the peer after 30 s anyway).
    public var idleTimeout: Duration = .seconds(30)
    /// Connections open at once, in all and from one IP address.
    public var maximumConnections = 1_024
    public var maximumPerAddress = 16

    public init() {}
}

/// The open ICE-TCP connections, counted in all and by IP address, shared by every loop.
final class MediaTCPAdmission: Sendable {
    let limits: MediaTCPLimits
    private let open = NIOLockedValueBox<(total: Int, byAddress: [IPAddress: Int])>((0, [:]))

    init(limits: MediaTCPLimits) {
        self.limits = limits
    }

    /// Counts a connection from `address` in; false (nothing counted) when either ceiling is reached.
    func admit(_ address: IPAddress) -> Bool {
        open.withLockedValue { open in
            let fromAddress = open.byAddress[address, default: 0]
            guard open.total < limits.maximumConnections, fromAddress < limits.maximumPerAddress else { return false }
            open.total += 1
            open.byAddress[address] = fromAddress + 1
            return true
        }
    }

    func release(_ address: IPAddress) {
        open.withLockedValue { open in
            open.total -= 1
            let left = open.byAddress[address, default: 1] - 1
            open.byAddress[address] = left > 0 ? left : nil
        }
    }
}

/// One ICE-TCP connection: hands each framed packet to its shard's loop.
final class MediaTCPConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let shards: [MediaShard]
    private let admission: MediaTCPAdmission
    private let firstRequestDeadline: Duration
    /// The shard of this connection's peer, from its first binding request.
    private var shard: Int?
    private var remote: TransportAddress?
    /// Whether the connection counts against ``MediaTCPAdmission`` (released when it closes).
    private var admitted = false

    init(shards: [MediaShard], admission: MediaTCPAdmission, firstRequestDeadline: Duration) {
        self.shards = shards
        self.admission = admission
        self.firstRequestDeadline = firstRequestDeadline
    }

    func channelActive(context: ChannelHandlerContext) {
        remote = context.channel.remoteAddress.flatMap(TransportAddress.init)
        guard let remote, admission.admit(remote.ip) else {
            context.close(promise: nil)
            return
        }
        admitted = true
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let channel = context.channel
        context.eventLoop.scheduleTask(in: TimeAmount(firstRequestDeadline)) {
            if handler.value.shard == nil { channel.close(promise: nil) }
        }
        context.fireChannelActive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Nothing read for the idle timeout (`IdleStateHandler`): the peer is gone.
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = Array(unwrapInboundIn(data).readableBytesView)
        guard let remote else { return }
        if shard == nil {
            // Until a binding request names the shard, nothing else on the connection can be ours.
            guard DatagramKind(classifying: bytes) == .stun, let named = MediaShard.index(inSTUN: bytes),
                shards.indices.contains(named)
            else { return }
            shard = named
        }
        guard let shard else { return }
        let connection = MediaTCPConnection(channel: context.channel)
        shards[shard].execute { $0.receiveTCP(bytes, from: remote, on: connection) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if admitted, let remote {
            admitted = false
            admission.release(remote.ip)
        }
        if let shard, let remote { shards[shard].execute { $0.tcpClosed(remote) } }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A broken or oversized frame: this connection is unusable, the port is not.
        context.close(promise: nil)
    }
}

/// The shard's handle on an ICE-TCP connection: writes go through the channel, from the shard's
/// loop to the connection's.
struct MediaTCPConnection: Sendable {
    let channel: any Channel

    /// Sends `buffer`, unless the connection's buffer is past its high water mark (a peer that
    /// reads slower than it is sent to): then it is dropped, as a full UDP socket would.
    func write(_ buffer: ByteBuffer) {
        guard channel.isWritable else { return }
        channel.writeAndFlush(buffer, promise: nil)
    }
}
