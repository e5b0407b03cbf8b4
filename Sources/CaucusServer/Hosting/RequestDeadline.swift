import NIOCore
import NIOHTTP1

/// Closes a connection that takes longer than the deadline to send a whole request (its TLS
/// handshake, head and body) from the moment it was accepted or its last answer was sent: a
/// socket that says nothing, or dribbles a head or a body, must not hold a descriptor for ever.
/// The clock stops while a request is being answered; an upgrade to a WebSocket takes the
/// handler out of the pipeline (`WebSocketUpgrader`), and the join deadline takes over.
///
/// It sits behind the HTTP decoder, encoder and upgrade handler, where only whole request and
/// response parts pass (an upgrade request stops at the upgrade handler, which takes this
/// handler out).
final class RequestDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    static let name = "caucus.requestDeadline"

    private let deadline: TimeAmount
    /// Called when the deadline closes a connection (a metric).
    private let passed: @Sendable () -> Void
    private var timer: Scheduled<Void>?
    /// The current request has been read whole, and its answer sent whole.
    private var requestRead = false
    private var answerSent = false

    init(deadline: TimeAmount, passed: @escaping @Sendable () -> Void = {}) {
        self.deadline = deadline
        self.passed = passed
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) {
            requestRead = true
            // The request is all here: answering it takes what it takes. Answered already
            // (before its body was read), the next request's deadline starts.
            if answerSent { nextRequest(context: context) } else { stop() }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            answerSent = true
            // The answer is out: the next request (keep-alive) has the deadline from now. An
            // answer sent before the request was read whole leaves its deadline running.
            if requestRead { nextRequest(context: context) }
        }
        context.write(data, promise: promise)
    }

    private func nextRequest(context: ChannelHandlerContext) {
        requestRead = false
        answerSent = false
        stop()
        start(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    private func start(context: ChannelHandlerContext) {
        guard timer == nil else { return }
        let channel = context.channel
        let passed = passed
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: deadline) {
            passed()
            channel.close(promise: nil)
        }
    }

    private func stop() {
        timer?.cancel()
        timer = nil
    }
}

@available(*, unavailable)
extension RequestDeadline: Sendable {}
