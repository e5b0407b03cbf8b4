import CaucusMedia
import NIOCore
import NIOExtras
import NIOPosix

/// ICE over TCP (RFC 6544) for peers whose network blocks UDP: a passive TCP candidate on the
/// media address, each connection carrying the same STUN, DTLS and SRTP as a UDP peer would
/// send, framed by RFC 4571 (a two-byte length before each packet). A connection's packets go
/// to the shard its first binding request names (the ufrag's shard prefix), where its peer
/// lives; there the connection's remote address is the peer's address like any other, and
/// what the peer is sent goes back on the connection (`MediaChannelHandler`).
enum MediaTCPListener {
    /// Binds the listener; `port` 0 picks a free one.
    static func bind(host: String, port: Int, shards: [MediaShard]) async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        ByteToMessageHandler(LengthFieldBasedFrameDecoder(lengthFieldBitLength: .twoBytes)),
                        LengthFieldPrepender(lengthFieldBitLength: .twoBytes),
                        MediaTCPConnectionHandler(shards: shards),
                    ])
                }
            }
            .bind(host: host, port: port)
            .get()
    }
}

/// One ICE-TCP connection: hands each framed packet to its shard's loop.
final class MediaTCPConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let shards: [MediaShard]
    /// The shard of this connection's peer, from its first binding request.
    private var shard: Int?
    private var remote: TransportAddress?

    init(shards: [MediaShard]) {
        self.shards = shards
    }

    func channelActive(context: ChannelHandlerContext) {
        remote = context.channel.remoteAddress.flatMap(TransportAddress.init)
        context.fireChannelActive()
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

    func write(_ buffer: ByteBuffer) {
        channel.writeAndFlush(buffer, promise: nil)
    }
}
