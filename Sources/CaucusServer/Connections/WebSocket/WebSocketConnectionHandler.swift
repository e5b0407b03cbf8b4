import DequeModule
import NIOCore
import NIOWebSocket

/// One client's WebSocket, served inside its channel pipeline: it assembles text messages,
/// answers pings, keeps the socket alive, runs the close handshake, and hands complete
/// messages to the conversation one at a time, in order. An idle socket holds no task: a
/// task exists only while a request is being handled.
///
/// Everything here runs on the channel's event loop.
final class WebSocketConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let limits: Limits
    /// Where this socket's request tasks are counted, so a stopping server can wait for them.
    private let requests: InFlightRequests
    private let conversation: any WebSocketConversation
    private var phase = WebSocketSession.Phase.awaitingJoin
    /// Bounds the connections not joined yet (nil: no bound, no deadline).
    private let admission: JoinAdmission?
    /// The place this connection was given when accepted (nil: it is counted at the upgrade).
    private let accepted: AdmissionTicket?
    /// The place this connection holds among those not joined, while it has not joined.
    private var waiting: AdmissionTicket?
    private var joinTimer: Scheduled<Void>?
    /// The join deadline passed while a message was being handled: decided once it is.
    private var joinDeadlinePassed = false
    private var waitingBegan = false

    /// A message being assembled from fragments: its opcode and the bytes so far.
    private var partial: (opcode: WebSocketOpcode, bytes: ByteBuffer)?
    private var queue = Deque<WebSocketSession.Inbound>()
    private var handling = false
    private var readHeld = false

    private var closeSent = false
    /// The session broke while a request was in hand: the close waits for its answer.
    private var heldClose: CloseRequest?
    private var closeReceived = false
    /// After a protocol failure nothing more is read but the client's close.
    private var discarding = false
    private var closeTimer: Scheduled<Void>?
    private var keepAliveTimer: Scheduled<Void>?
    private var heardSincePing = true
    private var context: ChannelHandlerContext?

    init(
        conversation: any WebSocketConversation, limits: Limits, requests: InFlightRequests = InFlightRequests(),
        admission: JoinAdmission? = nil, accepted: AdmissionTicket? = nil
    ) {
        self.conversation = conversation
        self.limits = limits
        self.requests = requests
        self.admission = admission
        self.accepted = accepted
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        scheduleKeepAlive(context: context)
        if context.channel.isActive { beginWaitingToJoin(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        beginWaitingToJoin(context: context)
        context.fireChannelActive()
    }

    /// Counts the connection under its address until it joins (from its accept, when it was
    /// counted then), and starts its join deadline.
    private func beginWaitingToJoin(context: ChannelHandlerContext) {
        guard let admission, !waitingBegan else { return }
        waitingBegan = true
        let ticket: AdmissionTicket?
        if let accepted {
            ticket = accepted.countsAddress ? accepted : nil
            if ticket == nil { admission.upgradeRefused() }
        } else {
            ticket = admission.admit(context.channel.remoteAddress?.ipAddress ?? "unknown")
        }
        guard let ticket else {
            discarding = true
            return sendClose(
                code: CloseCode.tooManyWaiting.rawValue,
                reason: "Too many connections from your address have not joined; join on one of them first.", context: context)
        }
        waiting = ticket
        scheduleJoinDeadline(context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        keepAliveTimer?.cancel()
        closeTimer?.cancel()
        stopWaitingToJoin()
        self.context = nil
    }

    // MARK: - Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        heardSincePing = true
        // RFC 6455 §5.1: a server must fail the connection on a frame the client did not mask.
        guard frame.maskKey != nil else {
            return fail(.protocolError, "Client frames must be masked.", context: context)
        }
        if frame.opcode == .connectionClose { return receivedClose(frame, context: context) }
        guard !closeReceived, !discarding else { return }
        guard frame.rsv1 == false, frame.rsv2 == false, frame.rsv3 == false else {
            return fail(.protocolError, "Reserved bits are set but no extension was agreed.", context: context)
        }
        switch frame.opcode {
        case .ping:
            guard !closeSent else { return }
            context.writeAndFlush(wrapOutboundOut(ServerFrames.control(.pong, payload: frame.unmaskedData)), promise: nil)
        case .pong: break
        case .text, .binary:
            guard partial == nil else { return fail(.protocolError, "A new message began before the last one ended.", context: context) }
            partial = (frame.opcode, frame.unmaskedData)
            if frame.fin { finishMessage(context: context) }
        case .continuation:
            guard partial != nil else { return fail(.protocolError, "A continuation frame with no message to continue.", context: context) }
            var data = frame.unmaskedData
            guard partial!.bytes.readableBytes + data.readableBytes <= limits.maxMessageBytes else {
                return fail(.messageTooLarge, "The message is larger than \(limits.maxMessageBytes) bytes.", context: context)
            }
            partial!.bytes.writeBuffer(&data)
            if frame.fin { finishMessage(context: context) }
        default:
            fail(.protocolError, "Unknown opcode.", context: context)
        }
    }

    private func finishMessage(context: ChannelHandlerContext) {
        guard let (opcode, bytes) = partial else { return }
        partial = nil
        guard !closeSent else { return }
        if opcode == .binary {
            enqueue(.binary, context: context)
        } else if String(validating: bytes.readableBytesView, as: UTF8.self) == nil {
            fail(.invalidPayload, "Text frames must be valid UTF-8.", context: context)
        } else {
            enqueue(.text(bytes), context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error as? NIOWebSocketError {
        case .invalidFrameLength?: fail(.messageTooLarge, "The frame is larger than \(limits.maxMessageBytes) bytes.", context: context)
        case .some: fail(.protocolError, "The frame breaks the WebSocket protocol.", context: context)
        case nil: context.close(promise: nil)
        }
    }

    /// The server allows half-closure for HTTP; a WebSocket client that stops sending is gone.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is SkippingFrameDecoder.OversizeFrame {
            fail(.messageTooLarge, "The frame is larger than \(limits.maxMessageBytes) bytes.", context: context)
        } else if case .inputClosed? = event as? ChannelEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        keepAliveTimer?.cancel()
        closeTimer?.cancel()
        stopWaitingToJoin()
        enqueue(.closed, context: context)
        context.fireChannelInactive()
    }

    /// Holds the socket's reads while too many messages wait: a client that floods requests
    /// is slowed down by TCP instead of growing the server's memory.
    func read(context: ChannelHandlerContext) {
        if queue.count >= limits.maxQueuedMessages {
            readHeld = true
        } else {
            context.read()
        }
    }

    // MARK: - Handling, one message at a time

    private func enqueue(_ inbound: WebSocketSession.Inbound, context: ChannelHandlerContext) {
        queue.append(inbound)
        handleNext(on: context.eventLoop)
    }

    /// Starts handling the next message unless one is in hand. The queue outlives the
    /// pipeline: the final `.closed` is handled after the channel is gone.
    private func handleNext(on eventLoop: any EventLoop) {
        guard !handling, let next = queue.popFirst() else { return }
        if readHeld && queue.count < limits.maxQueuedMessages {
            readHeld = false
            context?.read()
        }
        handling = true
        let phase = phase
        let conversation = conversation
        let handler = NIOLoopBound(self, eventLoop: eventLoop)
        // Counted before the task exists, so a stopping server waits for it (`InFlightRequests`).
        let requests = requests
        requests.begin()
        Task {
            defer { requests.end() }
            let after = await conversation.handle(next, phase: phase)
            handler.eventLoop.execute {
                let handler = handler.value
                handler.phase = after
                handler.handling = false
                handler.handled(phase: after)
                if let held = handler.heldClose, let context = handler.context { handler.sendHeldClose(held, context: context) }
                handler.handleNext(on: eventLoop)
            }
        }
    }

    // MARK: - Writing and closing

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !closeSent else {
            promise?.fail(ChannelError.outputClosed)
            return
        }
        context.write(data, promise: promise)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        if event is JoinRefused {
            promise?.succeed()
            return restartJoinDeadline(context: context)
        }
        if event is JoinTaken {
            promise?.succeed()
            return stopWaitingToJoin()
        }
        guard let request = event as? CloseRequest else {
            return context.triggerUserOutboundEvent(event, promise: promise)
        }
        promise?.succeed()
        if request.code == .storeFailure || request.code == .moved {
            answerQueuedRequests(context: context)
            // The request in hand may have reached the session after it broke: its answer
            // comes after this. The close waits for it, at most the close timeout.
            if handling, !closeSent, heldClose == nil {
                heldClose = request
                closeTimer = context.eventLoop.assumeIsolated().scheduleTask(in: limits.closeTimeout) { [self] in
                    sendHeldClose(request, context: context)
                }
                return
            }
        }
        if request.code == .tooSlow {
            // A client that does not read would never take the close frame: drop the socket.
            context.close(promise: nil)
        } else {
            sendClose(code: request.code.rawValue, reason: request.reason, context: context)
        }
    }

    /// The session broke (4006, 4007): each request read but not handed to it yet is answered
    /// now, before the close, that it did not take effect, as the session answered those it
    /// held. Nothing more is read but the client's close.
    private func answerQueuedRequests(context: ChannelHandlerContext) {
        guard !closeSent else { return }
        discarding = true
        partial = nil
        let answers = queue.compactMap(conversation.unhandled)
        queue.removeAll { if case .closed = $0 { false } else { true } }
        for answer in answers { context.write(wrapOutboundOut(answer), promise: nil) }
        if !answers.isEmpty { context.flush() }
        // Reads held for a full queue resume: the client's close must still be read.
        if readHeld {
            readHeld = false
            context.read()
        }
    }

    private func sendHeldClose(_ request: CloseRequest, context: ChannelHandlerContext) {
        heldClose = nil
        closeTimer?.cancel()
        sendClose(code: request.code.rawValue, reason: request.reason, context: context)
    }

    /// Sends a close frame after everything already written; the socket closes when the
    /// client answers, or after the close timeout.
    private func sendClose(code: UInt16, reason: String, context: ChannelHandlerContext) {
        guard !closeSent else { return }
        let frame = wrapOutboundOut(ServerFrames.close(code: code, reason: reason))
        closeSent = true
        keepAliveTimer?.cancel()
        if closeReceived {
            context.writeAndFlush(frame).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        } else {
            context.writeAndFlush(frame, promise: nil)
            closeTimer = context.eventLoop.assumeIsolated().scheduleTask(in: limits.closeTimeout) { context.close(promise: nil) }
        }
    }

    private func receivedClose(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        guard !closeReceived else { return }
        closeReceived = true
        if closeSent {
            context.close(promise: nil)
        } else {
            switch ClientClose(payload: frame.unmaskedData) {
            case .valid(let code):
                // Echo the client's code (RFC 6455 §5.5.1); a close without one is answered 1000.
                sendClose(code: code ?? CloseCode.normal.rawValue, reason: "", context: context)
            case .invalid(let reason):
                fail(.protocolError, reason, context: context)
            }
        }
    }

    /// A protocol failure: the reason goes in the close frame and nothing more is read.
    private func fail(_ code: ProtocolClose, _ reason: String, context: ChannelHandlerContext) {
        partial = nil
        discarding = true
        sendClose(code: code.rawValue, reason: reason, context: context)
    }

    // MARK: - Joining in time

    private func scheduleJoinDeadline(context: ChannelHandlerContext) {
        guard let admission else { return }
        joinTimer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(admission.deadline)) { [self] in
            joinDeadlineCame(context: context)
        }
    }

    private func restartJoinDeadline(context: ChannelHandlerContext) {
        guard waiting != nil, !closeSent else { return }
        joinTimer?.cancel()
        joinDeadlinePassed = false
        scheduleJoinDeadline(context: context)
    }

    /// A connection that has not joined by its deadline is closed; one whose `join` is being
    /// handled right now is decided once that is done (`handled(phase:)`).
    private func joinDeadlineCame(context: ChannelHandlerContext) {
        guard waiting != nil, !closeSent else { return }
        guard !handling else {
            joinDeadlinePassed = true
            return
        }
        admission?.deadlinePassed()
        stopWaitingToJoin()
        discarding = true
        let seconds = admission.map { $0.deadline.components.seconds } ?? 0
        sendClose(code: CloseCode.joinDeadline.rawValue, reason: "No join within \(seconds) s.", context: context)
    }

    /// After each message: a connection that joined no longer counts as waiting.
    private func handled(phase: WebSocketSession.Phase) {
        switch phase {
        case .joined: stopWaitingToJoin()
        case .awaitingJoin:
            if joinDeadlinePassed, let context {
                joinDeadlinePassed = false
                joinDeadlineCame(context: context)
            }
        }
    }

    private func stopWaitingToJoin() {
        joinTimer?.cancel()
        joinTimer = nil
        joinDeadlinePassed = false
        waiting?.release()
        waiting = nil
    }

    // MARK: - Keep-alive

    /// Pings the client every interval; one that has sent nothing since the last ping
    /// (not even the pong) is gone, and its seat is held for the reconnect grace.
    private func scheduleKeepAlive(context: ChannelHandlerContext) {
        keepAliveTimer = context.eventLoop.assumeIsolated().scheduleTask(in: limits.keepAlive) { [self] in
            guard !closeSent else { return }
            guard heardSincePing else {
                return fail(.goingAway, "No answer to the last ping.", context: context)
            }
            heardSincePing = false
            context.writeAndFlush(wrapOutboundOut(ServerFrames.control(.ping, payload: ByteBuffer())), promise: nil)
            scheduleKeepAlive(context: context)
        }
    }
}

@available(*, unavailable)
extension WebSocketConnectionHandler: Sendable {}
