import NIOCore
import NIOTLS

/// Closes a connection whose TLS handshake has not completed within the deadline: a stranger
/// who opens a socket and says nothing (or dribbles a handshake) must not hold a descriptor
/// forever. Sits behind the TLS handler and leaves the pipeline once the handshake is done.
final class TLSHandshakeDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let deadline: TimeAmount
    private var timer: Scheduled<Void>?

    init(deadline: TimeAmount) {
        self.deadline = deadline
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted = event as? TLSUserEvent {
            timer?.cancel()
            timer = nil
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    private func start(context: ChannelHandlerContext) {
        guard timer == nil else { return }
        let channel = context.channel
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: deadline) {
            channel.close(promise: nil)
        }
    }
}

@available(*, unavailable)
extension TLSHandshakeDeadline: Sendable {}
