import Logging
import NIOConcurrencyHelpers
import NIOCore
import WSClient

#if canImport(Network)
import Network
import NIOTransportServices
import Security
#else
internal import NIOSSL
import NIOPosix
#endif

/// One WebSocket connection to the server, on WSClient (SwiftNIO): the same code on Linux and
/// Apple platforms. Frames to send go through `send`; what arrives comes out of `inbound`,
/// ending with `.closed`. On Apple platforms the socket and TLS are Network.framework's
/// (NIO Transport Services), which follows the device's interfaces and proxies and is what
/// Apple recommends on iOS; elsewhere they are POSIX sockets and BoringSSL.
///
/// Each socket runs on an event loop of its own, shut down when the socket ends. That is what
/// lets an attempt be abandoned: WSClient (1.6.2) opens its channel with remote half-closure
/// allowed, and NIO's client upgrade handler ignores a half-close, so a peer that accepts the
/// TCP connection, reads the upgrade request and closes (a proxy whose upstream is down)
/// leaves `WebSocketClient.connect` waiting forever on a half-open channel; cancelling the task
/// does not end that wait either (it awaits an `EventLoopFuture`). Shutting the loop down
/// closes the channel, which fails the upgrade, which ends the connect task. An upgraded
/// connection is given up differently: its task is cancelled, which makes WSClient close the
/// channel on its live loop, and the task shuts the loop down once it has unwound. Shutting
/// the loop down under an upgraded connection instead left WSClient's unwinding task closing
/// its channel on a dead loop (SwiftNIO prints an error for that, and in strict mode,
/// `SWIFTNIO_STRICT=1`, crashes).
final class Socket: Sendable {
    enum Inbound: Sendable {
        case text(String)
        /// The connection is over. `code` is the server's close code (4002 session ended, …),
        /// nil if the connection dropped without one.
        case closed(code: UInt16?, reason: String?)
    }

    private static let counter = NIOLockedValueBox(0)

    let id: Int
    let inbound: AsyncStream<Inbound>
    private let outgoing: AsyncStream<String>.Continuation
    /// Why opening failed, if it did.
    private let failure = NIOLockedValueBox<SessionError?>(nil)
    private let loop: OwnedEventLoop
    /// The task that connects and then carries the connection, ending with it.
    private let connection = NIOLockedValueBox<Task<Void, Never>?>(nil)

    private init(inbound: AsyncStream<Inbound>, outgoing: AsyncStream<String>.Continuation, loop: OwnedEventLoop) {
        id = Self.counter.withLockedValue { count in
            count += 1
            return count
        }
        self.inbound = inbound
        self.outgoing = outgoing
        self.loop = loop
    }

    /// Connects; returns once the WebSocket is open. Fails as soon as the connection fails,
    /// when the upgrade has not completed within `connectTimeout`, or when the calling task is
    /// cancelled; a failed attempt leaves no channel open and its task ends.
    static func connect(to url: String, configuration: CaucusSession.Configuration) async throws(SessionError) -> Socket {
        guard !Task.isCancelled else { throw .connectionFailed("cancelled") }
        if let refusal = TLSFailure.refusal(of: url) { throw refusal }
        let (inbound, received) = AsyncStream.makeStream(of: Inbound.self)
        let (outbound, sender) = AsyncStream.makeStream(of: String.self)
        let (opened, opening) = AsyncStream.makeStream(of: Void.self)
        let loop = OwnedEventLoop()
        let socket = Socket(inbound: inbound, outgoing: sender, loop: loop)
        // The session's own keepalive decides when a connection is dead (SessionEngine+Keepalive).
        let client = WebSocketClientConfiguration(maxFrameSize: configuration.maxFrameSize, autoPing: .disabled)
        let maxSize = configuration.maxFrameSize
        let logger = configuration.logger
        let task = Task {
            var code: UInt16?
            var reason: String?
            do {
                // Given up before it began: the loop is already shut, nothing may run on it.
                guard loop.begin() else { throw SessionError.connectionFailed("given up before connecting") }
                let close = try await open(url, client, trusting: configuration.trustRoots, on: loop.group, logger: logger) { inbound, writer, _ in
                    loop.upgraded()
                    opening.yield()
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await text in outbound { try await writer.write(.text(text)) }
                            try await writer.close(.normalClosure, reason: nil)
                        }
                        for try await message in inbound.messages(maxSize: maxSize) {
                            if case .text(let text) = message { received.yield(.text(text)) }
                        }
                        group.cancelAll()
                    }
                }
                if let close {
                    code = Self.number(of: close)
                    reason = close.reason
                }
            } catch {
                socket.failure.withLockedValue { $0 = $0 ?? TLSFailure.sessionError(for: error, url: url) }
                reason = "\(error)"
            }
            opening.finish()
            sender.finish()
            received.yield(.closed(code: code, reason: reason))
            received.finish()
            if Task.isCancelled {
                // Given up (`abandon`): WSClient answered the cancellation with an unstructured
                // task of its own that closes the channel's input, and that task may run after
                // this one unwound (`SWIFTNIO_STRICT=1` crashed on it in StoreOutageSeatTests).
                // It was queued at the cancellation, before this task ended: a second on, it has
                // run, on a loop still open.
                Task {
                    try? await Task.sleep(for: .seconds(1))
                    loop.shutDown()
                }
            } else {
                // Nothing of the connection runs on the loop any more.
                loop.shutDown()
            }
        }
        socket.connection.withLockedValue { $0 = task }
        // Opening has its own short bound, apart from requests': a peer that accepts but never
        // upgrades (or closes without a word) costs one short attempt.
        let limit = configuration.connectTimeout
        let watchdog = Task {
            try await Task.sleep(for: limit)
            socket.failure.withLockedValue { $0 = $0 ?? .connectionFailed("no WebSocket upgrade within \(limit)") }
            opening.finish()
        }
        defer { watchdog.cancel() }
        // Ends with nil on failure, on the watchdog, or when this task is cancelled.
        var iterator = opened.makeAsyncIterator()
        guard await iterator.next() != nil, !Task.isCancelled else {
            socket.abandon()
            throw socket.failure.withLockedValue { $0 } ?? .connectionFailed("the connection closed while opening")
        }
        return socket
    }

    #if canImport(Network)
    /// Network.framework: WSClient takes a Network.framework bootstrap for a
    /// `NIOTSEventLoopGroup`, and for `wss` its TLS: the system's trust, the `roots` added as
    /// anchors beside it, and the URL's host as the server name.
    private static func open(
        _ url: String, _ configuration: WebSocketClientConfiguration, trusting roots: [CaucusSession.Configuration.TrustRoot],
        on group: NIOTSEventLoopGroup, logger: Logger, handler: @escaping WebSocketDataHandler<WebSocketClient.Context>
    ) async throws -> WebSocketCloseFrame? {
        try await WebSocketClient.connect(
            url: url, configuration: configuration, transportServicesTLSOptions: .options(TrustedTLSOptions.make(trusting: roots.map(\.derBytes))),
            eventLoopGroup: group, logger: logger, handler: handler)
    }
    #else
    /// POSIX sockets; for `wss`, BoringSSL with the system's trust roots and `roots` beside
    /// them, TLS 1.2 at least.
    private static func open(
        _ url: String, _ configuration: WebSocketClientConfiguration, trusting roots: [CaucusSession.Configuration.TrustRoot],
        on group: MultiThreadedEventLoopGroup, logger: Logger, handler: @escaping WebSocketDataHandler<WebSocketClient.Context>
    ) async throws -> WebSocketCloseFrame? {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        if !roots.isEmpty {
            // Each was read as a certificate when the app made it (`TrustRoot.init`).
            tls.additionalTrustRoots = [.certificates(try roots.map { try NIOSSLCertificate(bytes: $0.derBytes, format: .der) })]
        }
        return try await WebSocketClient.connect(
            url: url, configuration: configuration, tlsConfiguration: tls, eventLoopGroup: group, logger: logger, handler: handler)
    }
    #endif

    func send(_ text: String) { outgoing.yield(text) }

    /// Closes the connection from this side: a normal close once what is queued is sent.
    func close() { outgoing.finish() }

    /// Gives the connection up, upgraded or not, without waiting out a closing handshake (on a
    /// dead path its answer never comes). Its task is cancelled: an upgraded connection then
    /// closes its channel on its live loop (WSClient closes the input at once, which cuts the
    /// closing handshake short), and the task shuts the loop down after it has unwound, so
    /// nothing is sent to a shut loop. An upgrade still awaited ignores the cancellation: a
    /// second later, if it has not completed by then, the loop is shut down under it, which
    /// closes the channel and fails the upgrade (nothing of the connection runs on the loop
    /// after that). Not at once: work already started off the loop (NIO resolves the host on a
    /// dispatch queue, then hands the result to the loop) must still find it open, or NIO
    /// reports (in strict mode, crashes on) work sent to a shut loop. A second is ample for a
    /// numeric or cached address; a name resolver slower than that remains a (reported,
    /// harmless) race.
    func abandon() {
        outgoing.finish()
        connection.withLockedValue { $0 }?.cancel()
        Task { [loop] in
            try? await Task.sleep(for: .seconds(1))
            loop.shutDownUnlessUpgraded()
        }
    }

    /// The close code as a number. WSClient names the standard codes; Caucus's own (1012,
    /// 4001–4006) come through as `unknown`. Only those and a normal close matter here.
    private static func number(of close: WebSocketCloseFrame) -> UInt16? {
        switch close.closeCode {
        case .unknown(let number): number
        case .normalClosure: 1000
        default: nil
        }
    }
}

/// A one-loop group that belongs to one socket, shut down once (closing whatever channel is
/// still on it) by whichever comes first: the socket's end, or the abandonment of a socket
/// whose upgrade never completed (an upgraded one ends on its own once cancelled). A
/// connection must not start on a loop already shut (NIO refuses work there, and will crash on
/// it in strict mode), hence `begin`. On Apple platforms it is a Network.framework loop (a
/// dispatch queue), whose shutdown closes its channels just as a POSIX loop's does.
private final class OwnedEventLoop: Sendable {
    private enum State { case idle, running, upgraded, shut }

    #if canImport(Network)
    let group = NIOTSEventLoopGroup(loopCount: 1)
    #else
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    #endif
    private let state = NIOLockedValueBox(State.idle)

    /// Whether the connection may start: false once the loop is shut.
    func begin() -> Bool {
        state.withLockedValue { state in
            guard state == .idle else { return false }
            state = .running
            return true
        }
    }

    /// The WebSocket upgrade completed: from now on only the socket's end shuts the loop down.
    func upgraded() {
        state.withLockedValue { state in
            if state == .running { state = .upgraded }
        }
    }

    /// Never called on the loop itself (NIO forbids it): callers are Swift tasks.
    func shutDown() {
        shutDown(when: { $0 != .shut })
    }

    /// Shuts the loop down if the connection on it never upgraded (its task cannot end otherwise).
    func shutDownUnlessUpgraded() {
        shutDown(when: { $0 == .idle || $0 == .running })
    }

    private func shutDown(when condition: (State) -> Bool) {
        let shutting = state.withLockedValue { state in
            guard condition(state) else { return false }
            state = .shut
            return true
        }
        if shutting { group.shutdownGracefully { _ in } }
    }
}
