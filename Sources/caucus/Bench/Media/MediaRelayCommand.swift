import ArgumentParser
import Foundation
import NIOCore
import NIOPosix

/// The floor `caucus bench media` measures the server against: a bare SwiftNIO UDP relay, in
/// a process of its own so its CPU time can be read from /proc. Same socket options as the
/// server's media port (batched reads, a flush per batch, 4 MiB socket buffers), but no ICE, no DTLS, no SRTP, no
/// rewriting: each packet's SSRC names its publisher's stream, and the same bytes go to the
/// subscribers the table lists for it, the fan-out the server was measured with.
struct MediaRelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "media-relay", abstract: "The bare UDP relay `bench media` starts as its floor.", shouldDisplay: false)

    @Option(help: "A JSON file: {\"fanout\": {\"<stream's SSRC>\": [<subscriber>, …]}}.") var table: String

    struct Table: Codable {
        var fanout: [String: [Int]]
    }

    func run() async throws {
        let decoded = try JSONDecoder().decode(Table.self, from: Data(contentsOf: URL(fileURLWithPath: table)))
        let fanout = Dictionary(uniqueKeysWithValues: decoded.fanout.compactMap { key, value in Int(key).map { ($0, value) } })
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton.next())
            .channelOption(.datagramVectorReadMessageCount, value: 32)
            // The server's media port asks for these (`MediaTransport.socketBufferBytes`): with
            // the kernel's default a burst of video overflowed the relay's socket.
            .channelOption(.socketOption(.so_rcvbuf), value: 4 << 20)
            .channelOption(.socketOption(.so_sndbuf), value: 4 << 20)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 2_048 * 32))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(RelayHandler(fanout: fanout)) }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        FileHandle.standardOutput.write(Data("port \(channel.localAddress?.port ?? 0)\n".utf8))
        try await channel.closeFuture.get()
    }
}

private final class RelayHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    /// By publisher stream (its SSRC), the subscribers it reaches.
    let fanout: [Int: [Int]]
    /// By subscriber, where it said hello from.
    private var addresses: [Int: SocketAddress] = [:]
    private var pendingFlush = false

    init(fanout: [Int: [Int]]) { self.fanout = fanout }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        let bytes = envelope.data
        if bytes.readableBytes == 8, bytes.getInteger(at: bytes.readerIndex, as: UInt32.self) == 0x4845_4C4F,
            let index = bytes.getInteger(at: bytes.readerIndex + 4, as: UInt32.self)
        {
            addresses[Int(index)] = envelope.remoteAddress
            return
        }
        guard let stream = bytes.getInteger(at: bytes.readerIndex + 8, as: UInt32.self), let subscribers = fanout[Int(stream)] else { return }
        for subscriber in subscribers {
            guard let address = addresses[subscriber] else { continue }
            context.write(wrapOutboundOut(AddressedEnvelope(remoteAddress: address, data: bytes)), promise: nil)
            pendingFlush = true
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if pendingFlush {
            pendingFlush = false
            context.flush()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {}
}
