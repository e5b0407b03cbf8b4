import CaucusMedia
import NIOCore

/// The media port's channel handler: each datagram goes to its peer through the
/// `MediaPeerTable`, and what the peers answer is written at once and flushed once per read
/// batch (`channelReadComplete`), so a `recvmmsg` batch becomes one `sendmmsg`. A repeating
/// timer on the same loop runs the peers' deadlines.
final class MediaChannelHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    let table: MediaPeerTable
    let router: MediaRouter
    private let tickInterval: TimeAmount
    private var tick: RepeatedTask?
    /// Datagrams written since the last flush.
    private var pendingFlush = false
    /// Reused for every datagram's bytes on the way in.
    private var scratch: [UInt8] = []
    /// Kept for writes that start outside a read (signalling, the timer).
    private var context: ChannelHandlerContext?

    init(table: MediaPeerTable, metrics: MediaMetrics, tickInterval: TimeAmount) {
        let router = MediaRouter(table: table, metrics: metrics)
        self.table = table
        self.router = router
        self.tickInterval = tickInterval
        // The hook holds the router; the router holds the table unowned (no cycle).
        table.onMedia = { key, event in router.receive(event, from: key) }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        let loopBoundSelf = NIOLoopBound(self, eventLoop: context.eventLoop)
        tick = context.eventLoop.scheduleRepeatedTask(initialDelay: tickInterval, delay: tickInterval) { _ in
            let handler = loopBoundSelf.value
            handler.send(handler.table.handleDeadlines(now: MediaClock.now()))
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        tick?.cancel()
        tick = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard let source = TransportAddress(envelope.remoteAddress) else { return }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: envelope.data.readableBytesView)
        write(table.receive(scratch, from: source, now: MediaClock.now()), context: context)
        write(router.drain(), context: context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded(context: context)
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A UDP socket reports ICMP errors (port unreachable) here: one peer's problem, not
        // the port's. Keep serving.
    }

    /// Writes from outside a read (signalling, the timer), flushed at once. Call on the loop.
    func send(_ datagrams: [AddressedDatagram]) {
        guard let context else { return }
        let datagrams = datagrams + router.drain()
        guard !datagrams.isEmpty else { return }
        write(datagrams, context: context)
        flushIfNeeded(context: context)
    }

    private func write(_ datagrams: [AddressedDatagram], context: ChannelHandlerContext) {
        guard !datagrams.isEmpty else { return }
        for datagram in datagrams {
            let buffer = context.channel.allocator.buffer(bytes: datagram.bytes)
            context.write(wrapOutboundOut(AddressedEnvelope(remoteAddress: datagram.destination.socketAddress, data: buffer)), promise: nil)
        }
        pendingFlush = true
    }

    private func flushIfNeeded(context: ChannelHandlerContext) {
        guard pendingFlush else { return }
        pendingFlush = false
        context.flush()
    }
}

/// The media side's time: a `Duration` since boot on the monotonic clock, as `MediaPeer` takes it.
enum MediaClock {
    static func now() -> Duration { .nanoseconds(Int64(NIODeadline.now().uptimeNanoseconds)) }
}
