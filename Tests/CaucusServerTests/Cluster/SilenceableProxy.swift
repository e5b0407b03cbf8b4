import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP proxy of the tests' own between one node and PostgreSQL, to break that link the way
/// networks do. `silence()` stops it forwarding anything, either way, on every connection
/// open then, without closing any: what the node sends is read and dropped, and nothing comes
/// back (a link that drops packets; the node's TCP sees its data acknowledged, so only a
/// deadline of its own can end its wait). `refuse()` closes every connection and each new one
/// as it comes (a server that stopped). `heal()` forwards new connections again; those that
/// were silenced stay dead, as over a real link that was down long enough.
final class SilenceableProxy: Sendable {
    enum Mode: Sendable {
        case forwarding, silent, refusing
    }

    let port: Int
    private let listener: any Channel
    private let shared: Shared

    /// Listens on a free loopback port and forwards to `127.0.0.1:upstreamPort`.
    init(toPort upstreamPort: Int) async throws {
        let shared = Shared()
        self.shared = shared
        listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { inbound in
                Self.accept(inbound, upstreamPort: upstreamPort, shared: shared)
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = listener.localAddress?.port ?? 0
    }

    /// A PostgreSQL URL whose host and port are this proxy's instead of `url`'s.
    func route(_ url: String, upstreamPort: Int) -> String {
        url.replacingOccurrences(of: "127.0.0.1:\(upstreamPort)/", with: "127.0.0.1:\(port)/")
    }

    func silence() { shared.set(.silent) }
    func refuse() { shared.set(.refusing) }
    func heal() { shared.set(.forwarding) }

    func stop() {
        shared.set(.refusing)
        listener.close(promise: nil)
    }

    private static func accept(_ inbound: any Channel, upstreamPort: Int, shared: Shared) -> EventLoopFuture<Void> {
        switch shared.mode {
        case .refusing:
            return inbound.close()
        case .silent:
            // Accepted (by the kernel already), then never answered.
            let link = Link()
            link.attach(inbound)
            link.silence()
            shared.add(link)
            return inbound.pipeline.addHandler(Forwarder(link: link, partner: nil))
        case .forwarding:
            let link = Link()
            shared.add(link)
            return ClientBootstrap(group: inbound.eventLoop)
                .channelOption(.autoRead, value: false)
                .connect(host: "127.0.0.1", port: upstreamPort)
                .flatMap { upstream in
                    link.attach(inbound, upstream)
                    return inbound.pipeline.addHandler(Forwarder(link: link, partner: upstream))
                        .flatMap { upstream.pipeline.addHandler(Forwarder(link: link, partner: inbound)) }
                }
                .flatMapError { _ in inbound.close() }
        }
    }

    /// The proxy's mode and its connections, shared with the event loops.
    private final class Shared: Sendable {
        private let state = NIOLockedValueBox<(mode: Mode, links: [Link])>((.forwarding, []))

        var mode: Mode { state.withLockedValue { $0.mode } }

        func add(_ link: Link) { state.withLockedValue { $0.links.append(link) } }

        func set(_ mode: Mode) {
            let links = state.withLockedValue { state -> [Link] in
                state.mode = mode
                return state.links
            }
            for link in links {
                switch mode {
                case .forwarding: continue
                case .silent: link.silence()
                case .refusing: link.close()
                }
            }
        }
    }

    /// One proxied connection: its two channels, and whether it still forwards.
    private final class Link: Sendable {
        private let state = NIOLockedValueBox<(silent: Bool, channels: [any Channel])>((false, []))

        var isSilent: Bool { state.withLockedValue { $0.silent } }

        func attach(_ channels: any Channel...) { state.withLockedValue { $0.channels = channels } }

        func silence() { state.withLockedValue { $0.silent = true } }

        func close() {
            for channel in state.withLockedValue({ $0.channels }) { channel.close(promise: nil) }
        }
    }

    /// Reads one side and writes what it read to the other, unless the link is silent: then
    /// it reads on and drops everything. Either side closing closes the other.
    private final class Forwarder: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer

        let link: Link
        let partner: (any Channel)?

        init(link: Link, partner: (any Channel)?) {
            self.link = link
            self.partner = partner
        }

        // Reads one chunk at a time (`autoRead` is off), from when the channel is up.
        func handlerAdded(context: ChannelHandlerContext) {
            if context.channel.isActive { context.read() }
        }

        func channelActive(context: ChannelHandlerContext) {
            context.read()
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = unwrapInboundIn(data)
            guard !link.isSilent, let partner else { return }
            partner.writeAndFlush(bytes, promise: nil)
        }

        func channelReadComplete(context: ChannelHandlerContext) {
            context.read()
        }

        func channelInactive(context: ChannelHandlerContext) {
            // A silent link never closes: nothing of it reaches the other side.
            if !link.isSilent { partner?.close(promise: nil) }
            context.fireChannelInactive()
        }
    }
}
