import NIOCore
import NIOHTTP1

/// Adds `Strict-Transport-Security` to every HTTP response of a TLS connection: a browser that
/// once reached the server over HTTPS never tries plain HTTP to it again (RFC 6797). It sits
/// where every response head passes (just before the upgrade handler) and leaves with the HTTP
/// handlers when the socket becomes a WebSocket (`WebSocketUpgrader`), whose frames it must
/// not see.
final class StrictTransportSecurity: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    static let name = "caucus.strictTransportSecurity"
    /// A year, the usual value; no `includeSubDomains`: the operator's other hosts are not ours to pin.
    static let value = "max-age=31536000"

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = unwrapOutboundIn(data) else { return context.write(data, promise: promise) }
        head.headers.replaceOrAdd(name: "Strict-Transport-Security", value: Self.value)
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }
}

@available(*, unavailable)
extension StrictTransportSecurity: Sendable {}
