import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A TCP relay on loopback between SDK clients and the server. A test can cut every
/// connection through it (a real drop: the client sees its socket end without a close frame)
/// and refuse new ones for a while, so that a reconnecting client must wait.
final class TCPProxy: Sendable {
    let port: Int
    private let listener: any Channel
    private let connections: Connections
    private let dropping: ServerFrameFilter.Marker

    /// The connections through the proxy, and whether it lets new ones in.
    final class Connections: Sendable {
        private struct State {
            var open: [any Channel] = []
            /// The sides facing the clients.
            var clientSides: [any Channel] = []
            var refusing = false
        }

        private let state = Mutex(State())

        var refusing: Bool {
            get { state.withLock { $0.refusing } }
            set { state.withLock { $0.refusing = newValue } }
        }

        func track(client: any Channel, server: any Channel) {
            state.withLock { state in
                state.open += [client, server]
                state.clientSides.append(client)
            }
        }

        var clientSides: [any Channel] { state.withLock { $0.clientSides } }

        func closeAll() {
            let open = state.withLock { state in
                defer { state.open.removeAll() }
                return state.open
            }
            for channel in open { channel.close(promise: nil) }
        }
    }

    struct Refused: Error {}

    static func start(to target: Int) async throws -> TCPProxy {
        let connections = Connections()
        let dropping = ServerFrameFilter.Marker()
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                guard !connections.refusing else { return inbound.eventLoop.makeFailedFuture(Refused()) }
                // Both sides on the inbound channel's loop, so each relay is set up on its own loop.
                return ClientBootstrap(group: inbound.eventLoop)
                    .channelInitializer { outbound in
                        outbound.eventLoop.makeCompletedFuture {
                            try outbound.pipeline.syncOperations.addHandlers(ServerFrameFilter(dropping: dropping), Relay(to: inbound))
                        }
                    }
                    .connect(host: "127.0.0.1", port: target)
                    .flatMapThrowing { outbound in
                        try inbound.pipeline.syncOperations.addHandler(Relay(to: outbound))
                        connections.track(client: inbound, server: outbound)
                    }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = listener.localAddress?.port else { throw TestFailure("the proxy has no port") }
        return TCPProxy(port: port, listener: listener, connections: connections, dropping: dropping)
    }

    private init(port: Int, listener: any Channel, connections: Connections, dropping: ServerFrameFilter.Marker) {
        self.port = port
        self.listener = listener
        self.connections = connections
        self.dropping = dropping
    }

    /// Loses the next frame from the server whose text contains `marker`.
    func dropNextServerFrame(containing marker: String) { dropping.set(marker) }

    var url: URL { URL(string: "ws://127.0.0.1:\(port)/ws")! }

    /// Drops every connection through the proxy; with `refusingNew`, new ones are closed at
    /// once until `reopen()`.
    func cut(refusingNew: Bool = false) {
        connections.refusing = refusingNew
        connections.closeAll()
    }

    func reopen() { connections.refusing = false }

    /// Sends every client one text frame as if the server had sent it (unmasked, RFC 6455),
    /// e.g. an event of a type from a newer server. Call it while the server is quiet, so the
    /// frame falls between two of the server's.
    func inject(text: String) {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(UInt8(payload.count))
        } else {
            frame += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        frame += payload
        for channel in connections.clientSides { channel.writeAndFlush(ByteBuffer(bytes: frame), promise: nil) }
    }

    func stop() async {
        connections.closeAll()
        try? await listener.close()
    }
}

/// Copies what one side reads to the other, and closes the other when one side closes.
private final class Relay: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let partner: any Channel

    init(to partner: any Channel) { self.partner = partner }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner.writeAndFlush(unwrapInboundIn(data), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
