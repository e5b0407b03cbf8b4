import NIOCore
import NIOHTTP1

/// Answers a request the HTTP parser could not read, then closes: without it the parser's
/// error ends in the pipeline's tail and the socket stays open with no answer. A method the
/// server does not know (`BREW`, or `get`, since methods are case-sensitive) is 501 Not
/// Implemented (RFC 9110 §9.1); anything else the parser refuses is 400 Bad Request.
///
/// It sits behind the HTTP decoder for as long as the socket speaks HTTP; a WebSocket
/// upgrade takes it out of the pipeline (`WebSocketUpgrader`).
final class UnreadableRequestResponder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundOut = HTTPServerResponsePart

    static let name = "caucus.unreadableRequest"

    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else { return context.fireErrorCaught(error) }
        guard !answered else { return }
        answered = true
        let status: HTTPResponseStatus = parserError == .invalidMethod ? .notImplemented : .badRequest
        let head = HTTPResponseHead(
            version: .http1_1, status: status, headers: ["Connection": "close", "Content-Length": "0"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}

@available(*, unavailable)
extension UnreadableRequestResponder: Sendable {}
