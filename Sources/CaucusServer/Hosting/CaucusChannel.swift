import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOSSL

/// Each accepted socket: HTTP/1.1 for the control API, or, for `GET /ws` with an upgrade,
/// a WebSocket served entirely inside the channel pipeline. The WebSocket branch returns at
/// once: an idle socket costs its pipeline and nothing else (no task waits on it). With a
/// certificate, all of it runs over TLS: the context is the one served when the socket was
/// accepted, which a later reload does not change.
///
/// Every socket is counted from its accept until it joins or closes (`JoinAdmission`): over
/// the server's ceiling it is closed at once; each request must arrive whole within the
/// deadline (`RequestDeadline`).
struct CaucusChannel: ServerChildChannel, HTTPChannelHandler {
    enum UpgradeResult: Sendable {
        case webSocket
        case notUpgraded(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        case failedUpgrade(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
    }

    struct Value: ServerChildChannelValue {
        let upgradeResult: EventLoopFuture<UpgradeResult>
        let channel: any Channel
    }

    let responder: HTTPChannelHandler.Responder
    let maxFrameBytes: Int
    /// Makes the handler of an upgraded socket, given the socket's place among those not
    /// joined; nil: no WebSocket is served here (the health listener).
    let makeWebSocketHandler: (@Sendable (any Channel, AdmissionTicket?) -> WebSocketConnectionHandler)?
    /// Counts sockets not joined yet; nil: none is counted.
    var admission: JoinAdmission? = nil
    /// How long a socket may take to send a whole request (and, over TLS, to shake hands).
    var requestDeadline = TimeAmount.seconds(10)
    /// HTTPS and WSS: the certificate served; nil for plain HTTP. The TLS handshake counts
    /// against `requestDeadline`, which runs from the accept.
    var tls: ServedCertificate? = nil

    /// Each socket keeps its last receive buffer for reuse; NIO's default first size (2 KiB)
    /// would be a quarter of an idle user's memory budget. It grows when reads fill it.
    static let receiveBuffers = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 256, maximum: 64 * 1024)

    /// A socket closed at once because the server holds as many not joined as it may.
    struct OverCeiling: Error {}

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let ticket: AdmissionTicket?
        if let admission {
            guard let accepted = admission.accept(channel.remoteAddress?.ipAddress ?? "unknown") else {
                // Not a failed setup: that would reach the listening socket's pipeline.
                channel.close(promise: nil)
                return channel.eventLoop.makeSucceededFuture(Value(upgradeResult: channel.eventLoop.makeFailedFuture(OverCeiling()), channel: channel))
            }
            channel.closeFuture.whenComplete { _ in accepted.release() }
            ticket = accepted
        } else {
            ticket = nil
        }
        return channel.eventLoop.makeCompletedFuture {
            try channel.syncOptions?.setOption(.recvAllocator, value: Self.receiveBuffers)
            if let tls {
                try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls.context))
            }
            let secure = tls != nil
            let upgradeAttempted = NIOLoopBoundBox(false, eventLoop: channel.eventLoop)
            var upgraders: [any NIOTypedHTTPServerProtocolUpgrader<UpgradeResult>] = []
            if let make = makeWebSocketHandler {
                let upgrader = WebSocketUpgrader(maxFrameBytes: maxFrameBytes, makeHandler: { channel in make(channel, ticket) })
                upgraders.append(TrackingUpgrader(upgrader: upgrader, attempted: upgradeAttempted))
            }
            let upgrade = NIOTypedHTTPServerUpgradeConfiguration<UpgradeResult>(
                upgraders: upgraders,
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: secure))
                        try channel.pipeline.syncOperations.addHandler(HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
                        let http = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                        return upgradeAttempted.value ? .failedUpgrade(http) : .notUpgraded(http)
                    }
                })
            var configuration = NIOUpgradableHTTPServerPipelineConfiguration<UpgradeResult>(upgradeConfiguration: upgrade)
            configuration.enablePipelining = false
            configuration.enableErrorHandling = false
            configuration.enableResponseHeaderValidation = false
            let result = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: configuration)
            let upgrader = try channel.pipeline.syncOperations.handler(type: NIOTypedHTTPServerUpgradeHandler<UpgradeResult>.self)
            if secure {
                try channel.pipeline.syncOperations.addHandler(
                    StrictTransportSecurity(), name: StrictTransportSecurity.name, position: .before(upgrader))
            }
            // Behind the upgrade handler: bytes a removed HTTP decoder leaves over (frames sent
            // with the upgrade) go to the upgrade handler, never here.
            let admission = admission
            let deadlinePassed: @Sendable () -> Void = { admission?.requestDeadlinePassed() }
            try channel.pipeline.syncOperations.addHandler(RequestDeadline(deadline: requestDeadline, passed: deadlinePassed), name: RequestDeadline.name)
            try channel.pipeline.syncOperations.addHandler(UnreadableRequestResponder(), name: UnreadableRequestResponder.name)
            return Value(upgradeResult: result, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.upgradeResult.get() {
            case .webSocket: return
            case .notUpgraded(let http): await handleHTTP(asyncChannel: http, logger: logger)
            case .failedUpgrade(let http): await refuseUpgrade(http)
            }
        } catch {
            logger.debug("connection ended before its first request: \(error)")
        }
    }

    /// A WebSocket handshake the server would not take (another path, a bad key or version).
    private func refuseUpgrade(_ http: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>) async {
        try? await http.executeThenClose { _, outbound in
            let response = HTTPResponse(status: .badRequest, headerFields: [.connection: "close", .contentLength: "0"])
            try await outbound.write(contentsOf: [.head(response), .end(nil)])
        }
    }
}

/// Notes that a WebSocket handshake was tried, so a refused one is answered 400, not routed.
private struct TrackingUpgrader: NIOTypedHTTPServerProtocolUpgrader {
    let upgrader: WebSocketUpgrader
    let attempted: NIOLoopBoundBox<Bool>

    var supportedProtocol: String { upgrader.supportedProtocol }
    var requiredUpgradeHeaders: [String] { upgrader.requiredUpgradeHeaders }

    func buildUpgradeResponse(
        channel: any Channel, upgradeRequest: HTTPRequestHead, initialResponseHeaders: HTTPHeaders
    ) -> EventLoopFuture<HTTPHeaders> {
        attempted.value = true
        return upgrader.buildUpgradeResponse(channel: channel, upgradeRequest: upgradeRequest, initialResponseHeaders: initialResponseHeaders)
    }

    func upgrade(channel: any Channel, upgradeRequest: HTTPRequestHead) -> EventLoopFuture<CaucusChannel.UpgradeResult> {
        upgrader.upgrade(channel: channel, upgradeRequest: upgradeRequest)
    }
}
