import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Upgrades `GET /ws` to a WebSocket whose pipeline is only the frame decoder and one
/// `WebSocketConnectionHandler`: no task, no async stream and no frame encoder per socket
/// (the server writes frames it framed itself; see `ServerFrames`).
struct WebSocketUpgrader: NIOTypedHTTPServerProtocolUpgrader {
    typealias UpgradeResult = CaucusChannel.UpgradeResult

    let supportedProtocol = "websocket"
    let requiredUpgradeHeaders: [String] = []
    let maxFrameBytes: Int
    /// Makes the handler that serves the upgraded socket.
    let makeHandler: @Sendable (any Channel) -> WebSocketConnectionHandler

    /// RFC 6455 §1.3: the accept value proves the server read this handshake.
    private static let magicGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    func buildUpgradeResponse(
        channel: any Channel, upgradeRequest: HTTPRequestHead, initialResponseHeaders: HTTPHeaders
    ) -> EventLoopFuture<HTTPHeaders> {
        let path = upgradeRequest.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard path == "/ws", upgradeRequest.method == .GET else {
            return channel.eventLoop.makeFailedFuture(NIOWebSocketUpgradeError.unsupportedWebSocketTarget)
        }
        let keys = upgradeRequest.headers["Sec-WebSocket-Key"]
        guard keys.count == 1, let key = keys.first, upgradeRequest.headers["Sec-WebSocket-Version"] == ["13"] else {
            return channel.eventLoop.makeFailedFuture(NIOWebSocketUpgradeError.invalidUpgradeHeader)
        }
        var headers = initialResponseHeaders
        let digest = Insecure.SHA1.hash(data: Data((key + Self.magicGUID).utf8))
        headers.replaceOrAdd(name: "Upgrade", value: "websocket")
        headers.replaceOrAdd(name: "Connection", value: "upgrade")
        headers.add(name: "Sec-WebSocket-Accept", value: Data(digest).base64EncodedString())
        return channel.eventLoop.makeSucceededFuture(headers)
    }

    func upgrade(channel: any Channel, upgradeRequest: HTTPRequestHead) -> EventLoopFuture<UpgradeResult> {
        channel.eventLoop.makeCompletedFuture {
            // Events are small and latency matters: no Nagle delay behind unacknowledged data.
            try channel.syncOptions?.setOption(.socketOption(.tcp_nodelay), value: 1)
            // No HTTP is parsed from here on: an idle socket keeps only what serves its frames.
            channel.pipeline.syncOperations.removeHandler(name: UnreadableRequestResponder.name, promise: nil)
            // The request is in: from here the join deadline bounds the socket.
            channel.pipeline.syncOperations.removeHandler(name: RequestDeadline.name, promise: nil)
            // Over TLS: what added HSTS to the 101 must not see the frames.
            channel.pipeline.syncOperations.removeHandler(name: StrictTransportSecurity.name, promise: nil)
            try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(SkippingFrameDecoder(maxFrameBytes: maxFrameBytes)))
            try channel.pipeline.syncOperations.addHandler(makeHandler(channel))
            return .webSocket
        }
    }
}
