import Foundation
import NIOCore
import NIOPosix
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP relay on loopback between SDK clients and the server. A test can cut every
/// connection through it (a real drop: the client sees its socket end without a close frame)
/// and make it misbehave towards new ones for a while, the ways real networks do, so that a
/// reconnecting client must cope.
final class TCPProxy: Sendable {
    /// What the proxy does with a new connection.
    enum Mode: Sendable, Equatable {
        /// Relays it to the server.
        case forward
        /// Closes it at once, before reading anything.
        case refuse
        /// Reads the upgrade request, then closes (a FIN, no answer): a proxy whose upstream
        /// is down.
        case acceptAndClose
        /// Reads whatever comes and never answers or closes: a path that swallows packets.
        case blackhole
        /// Reads the upgrade request, then resets (SO_LINGER 0, then close: an RST).
        case reset
        /// Relays the WebSocket upgrade, then goes silently dead both ways, as `stall()`: a
        /// path that dies just after the upgrade.
        case stallAfterUpgrade
    }

    let port: Int
    private let listener: any Channel
    private let connections: Connections
    private let dropping: ServerFrameFilter.Marker
    private let ufrags: ServerFrameFilter.ICEUfrags

    /// The connections through the proxy, and what it does with new ones.
    final class Connections: Sendable {
        private struct State {
            var target: Int
            var open: [any Channel] = []
            /// The sides facing the clients.
            var clientSides: [any Channel] = []
            var mode = Mode.forward
            /// Connections met with a mode other than `forward`, or whose server could not be
            /// reached, since the proxy started.
            var turnedAway = 0
            /// Blackholed connections the client has not closed yet.
            var swallowed: [ObjectIdentifier: any Channel] = [:]
            /// Relayed connections (both sides) that went silently dead: open, relaying nothing.
            /// Held, so that no new channel can take an identifier of theirs.
            var stalled: [ObjectIdentifier: any Channel] = [:]
        }

        private let state: NIOLockedValueBox<State>

        init(target: Int) { state = NIOLockedValueBox(State(target: target)) }

        var target: Int {
            get { state.withLockedValue { $0.target } }
            set { state.withLockedValue { $0.target = newValue } }
        }

        var mode: Mode { state.withLockedValue { $0.mode } }

        func set(_ mode: Mode) { state.withLockedValue { $0.mode = mode } }

        func noteUnreachableServer() { state.withLockedValue { $0.turnedAway += 1 } }

        /// The mode a new connection meets, counted if it is turned away.
        func admit() -> Mode {
            state.withLockedValue { state in
                if state.mode != .forward { state.turnedAway += 1 }
                return state.mode
            }
        }

        var turnedAway: Int { state.withLockedValue { $0.turnedAway } }

        func track(client: any Channel, server: any Channel) {
            state.withLockedValue { state in
                state.open += [client, server]
                state.clientSides.append(client)
            }
        }

        var clientSides: [any Channel] { state.withLockedValue { $0.clientSides } }

        func swallow(_ channel: any Channel) { state.withLockedValue { $0.swallowed[ObjectIdentifier(channel)] = channel } }
        func release(_ channel: any Channel) { state.withLockedValue { _ = $0.swallowed.removeValue(forKey: ObjectIdentifier(channel)) } }
        var swallowedOpen: Int { state.withLockedValue { $0.swallowed.count } }

        /// Closes every relayed connection, with an RST if `reset`.
        func closeAll(reset: Bool) {
            let open = state.withLockedValue { state in
                defer { state.open.removeAll() }
                return state.open
            }
            for channel in open {
                if reset { resetThenClose(channel) } else { channel.close(promise: nil) }
            }
        }

        /// Every relayed connection open now goes silently dead, both ways: what either side
        /// sends is dropped, and neither is closed. New connections are not affected.
        func stallAll() {
            state.withLockedValue { state in
                for channel in state.open { state.stalled[ObjectIdentifier(channel)] = channel }
            }
        }

        /// These channels (both sides of one relayed connection) go silently dead from now on.
        func stall(_ channels: [any Channel]) {
            state.withLockedValue { state in
                for channel in channels { state.stalled[ObjectIdentifier(channel)] = channel }
            }
        }

        func isStalled(_ channel: any Channel) -> Bool {
            state.withLockedValue { $0.stalled[ObjectIdentifier(channel)] != nil }
        }

        func closeSwallowed() {
            for channel in state.withLockedValue({ Array($0.swallowed.values) }) { channel.close(promise: nil) }
        }
    }

    struct Refused: Error {}

    /// Listens on 127.0.0.1:`port` (a free port when 0) and relays to 127.0.0.1:`target`.
    /// `readingFrames`: the server's WebSocket frames are read on their way (to drop one, to
    /// note ICE ufrags); false relays bytes it cannot read, TLS's.
    static func start(to target: Int, port: Int = 0, readingFrames: Bool = true) async throws -> TCPProxy {
        let connections = Connections(target: target)
        let dropping = ServerFrameFilter.Marker()
        let ufrags = ServerFrameFilter.ICEUfrags()
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                let admitted = connections.admit()
                switch admitted {
                case .refuse:
                    return inbound.eventLoop.makeFailedFuture(Refused())
                case .acceptAndClose:
                    return inbound.eventLoop.makeCompletedFuture {
                        try inbound.pipeline.syncOperations.addHandler(CloseAfterRequest(reset: false))
                    }
                case .reset:
                    return inbound.eventLoop.makeCompletedFuture {
                        try inbound.pipeline.syncOperations.addHandler(CloseAfterRequest(reset: true))
                    }
                case .blackhole:
                    connections.swallow(inbound)
                    return inbound.eventLoop.makeCompletedFuture {
                        try inbound.pipeline.syncOperations.addHandler(Blackhole(connections: connections))
                    }
                case .forward, .stallAfterUpgrade:
                    let relayed = relay(
                        inbound, to: connections.target, connections: connections, dropping: readingFrames ? dropping : nil, ufrags: ufrags,
                        stallAfterUpgrade: admitted == .stallAfterUpgrade)
                    relayed.whenFailure { _ in connections.noteUnreachableServer() }
                    return relayed
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
        guard let port = listener.localAddress?.port else { throw TestFailure("the proxy has no port") }
        return TCPProxy(port: port, listener: listener, connections: connections, dropping: dropping, ufrags: ufrags)
    }

    private static func relay(
        _ inbound: any Channel, to target: Int, connections: Connections, dropping: ServerFrameFilter.Marker?,
        ufrags: ServerFrameFilter.ICEUfrags, stallAfterUpgrade: Bool
    ) -> EventLoopFuture<Void> {
        // Both sides on the inbound channel's loop, so each relay is set up on its own loop.
        ClientBootstrap(group: inbound.eventLoop)
            .channelInitializer { outbound in
                outbound.eventLoop.makeCompletedFuture {
                    if let dropping { try outbound.pipeline.syncOperations.addHandler(ServerFrameFilter(dropping: dropping, noting: ufrags)) }
                    try outbound.pipeline.syncOperations.addHandler(
                        Relay(to: inbound, connections: connections, stallAfterFirstRead: stallAfterUpgrade))
                }
            }
            .connect(host: "127.0.0.1", port: target)
            .flatMapThrowing { outbound in
                try inbound.pipeline.syncOperations.addHandler(Relay(to: outbound, connections: connections))
                connections.track(client: inbound, server: outbound)
            }
    }

    private init(
        port: Int, listener: any Channel, connections: Connections, dropping: ServerFrameFilter.Marker, ufrags: ServerFrameFilter.ICEUfrags
    ) {
        self.port = port
        self.listener = listener
        self.connections = connections
        self.dropping = dropping
        self.ufrags = ufrags
    }

    /// Every ICE ufrag the server gave the clients through this proxy (in `mediaOffer` answers).
    var serverICEUfrags: Set<String> { ufrags.all }

    /// Loses the next frame from the server whose text contains `marker`.
    func dropNextServerFrame(containing marker: String) { dropping.set(marker) }

    var url: URL { URL(string: "ws://127.0.0.1:\(port)/ws")! }

    /// Drops every connection through the proxy; with `refusingNew`, new ones are closed at
    /// once until `reopen()`.
    func cut(refusingNew: Bool = false) {
        cut(then: refusingNew ? .refuse : .forward)
    }

    /// Drops every connection through the proxy (with an RST in `reset` mode, else a close),
    /// and meets new ones with `mode` until `reopen()`.
    func cut(then mode: Mode) {
        connections.set(mode)
        connections.closeAll(reset: mode == .reset)
    }

    /// Makes every connection through the proxy silently dead (a path that went away without
    /// a word: no close, no RST, nothing delivered either way), and relays new ones as before.
    func stall() { connections.stallAll() }

    /// Meets new connections with `mode`, leaving the current ones alone.
    func misbehave(_ mode: Mode) { connections.set(mode) }

    /// Relays new connections again. Blackholed ones stay as they are: the client must give
    /// them up itself.
    func reopen() { connections.set(.forward) }

    /// Relays new connections to another port from now on (a restarted server).
    func retarget(to port: Int) { connections.target = port }

    /// New connections turned away so far: met with a mode other than `forward`, or closed
    /// because the server could not be reached.
    var turnedAway: Int { connections.turnedAway }

    /// Blackholed connections still open: ones the client has not given up.
    var swallowedOpen: Int { connections.swallowedOpen }

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
        connections.closeAll(reset: false)
        connections.closeSwallowed()
        try? await listener.close()
    }
}

/// Closes `channel` with an RST rather than a FIN: SO_LINGER on with a zero timeout.
private func resetThenClose(_ channel: any Channel) {
    guard let socket = channel as? any SocketOptionProvider else { return channel.close(promise: nil) }
    socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
}

/// Copies what one side reads to the other (nothing once stalled), and closes the other when
/// one side closes.
private final class Relay: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let partner: any Channel
    private let connections: TCPProxy.Connections
    /// On the server's side in `stallAfterUpgrade` mode: the first read is the upgrade's answer.
    private let stallAfterFirstRead: Bool

    init(to partner: any Channel, connections: TCPProxy.Connections, stallAfterFirstRead: Bool = false) {
        self.partner = partner
        self.connections = connections
        self.stallAfterFirstRead = stallAfterFirstRead
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !connections.isStalled(context.channel) else { return }
        partner.writeAndFlush(unwrapInboundIn(data), promise: nil)
        if stallAfterFirstRead { connections.stall([context.channel, partner]) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Reads what the client sends (its upgrade request), then closes without answering: with a
/// FIN, or with an RST if `reset`. Closing only once the read is complete leaves nothing
/// unread, so the plain close really is a FIN.
private final class CloseAfterRequest: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let reset: Bool
    private var read = false

    init(reset: Bool) { self.reset = reset }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) { read = true }

    func channelReadComplete(context: ChannelHandlerContext) {
        guard read else { return }
        if reset { resetThenClose(context.channel) } else { context.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
}

/// Reads and drops everything, answers nothing, and notes when the client closes.
private final class Blackhole: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let connections: TCPProxy.Connections

    init(connections: TCPProxy.Connections) { self.connections = connections }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func channelInactive(context: ChannelHandlerContext) {
        connections.release(context.channel)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
}
