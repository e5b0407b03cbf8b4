import CaucusMedia
import Logging
import NIOCore

/// One media shard's channel handler: the socket around the shard's core
/// (`MediaShardCore`). Each datagram goes to the core, and what the peers answer is written at
/// once and what the router forwards flushed once per read batch (`channelReadComplete`), so a
/// `recvmmsg` batch becomes one `sendmmsg`. A repeating timer on the same loop runs the peers'
/// deadlines; another follows the engines' (`scheduleEngineWake`).
///
/// A datagram no peer of this shard claims goes to the shard that should have it: the one its
/// ICE ufrag names (a binding request), the one that claimed its source address before, or
/// else each other shard in turn. Every hop is a task on the other loop, never a lock.
final class MediaChannelHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    let core: MediaShardCore
    var table: MediaPeerTable { core.table }
    var router: MediaRouter { core.router }
    let shard: Int
    /// Every shard, this one included; set once all are bound.
    var shards: [MediaShard] = []
    /// Source addresses another shard claimed after they reached this shard's socket.
    private var claimedElsewhere: [TransportAddress: Int] = [:]
    /// Datagrams that reached another shard's socket and were claimed here.
    private(set) var handedOver = 0
    private let metrics: MediaMetrics
    /// How often the peers' deadlines are swept, and the engines' periodic work runs
    /// (`ServerConfiguration.mediaTickInterval`).
    private let tickInterval: TimeAmount
    private var tick: RepeatedTask?
    /// The next routing slice, when one is waiting (`continueRouting`); none once the channel
    /// is inactive.
    private var routingSlice: Scheduled<Void>?
    /// The wake-up for the engines' next deadline, and when it fires (`scheduleEngineWake`).
    private var engineWake: (task: Scheduled<Void>, at: Duration)?
    private var isActive = false
    /// Datagrams written since the last flush.
    private var pendingFlush = false
    /// Whether runs of datagrams to one destination leave as one send (`SegmentationPlan`).
    let segmentationOffload: Bool
    /// Datagrams sent in runs.
    private(set) var segmentedDatagrams = 0
    /// Set when the server closes the port: a close before that is the socket failing.
    var isClosing = false
    private let logger: Logger
    /// Every datagram's bytes on the way in; the core decrypts media in place here.
    private var scratch: [UInt8] = []
    /// Kept for writes that start outside a read (signalling, the timer).
    private var context: ChannelHandlerContext?
    /// ICE-TCP connections (RFC 6544) by their remote address: what is sent there goes back on
    /// the connection instead of the UDP socket.
    private var tcpConnections: [TransportAddress: MediaTCPConnection] = [:]

    init(
        shard: Int, table: MediaPeerTable, metrics: MediaMetrics, tickInterval: Duration, segmentationOffload: Bool, routingSlice: Int,
        recording: RecordingContext, logger: Logger
    ) {
        self.core = MediaShardCore(
            table: table, metrics: metrics, routingSlice: routingSlice, recording: recording, periodicInterval: tickInterval)
        self.logger = logger
        self.segmentationOffload = segmentationOffload
        self.shard = shard
        self.metrics = metrics
        self.tickInterval = TimeAmount(tickInterval)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        isActive = true
        let loopBoundSelf = NIOLoopBound(self, eventLoop: context.eventLoop)
        tick = context.eventLoop.scheduleRepeatedTask(initialDelay: tickInterval, delay: tickInterval) { _ in
            let handler = loopBoundSelf.value
            handler.send(handler.core.handlePeerDeadlines(now: MediaClock.now()))
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        tick?.cancel()
        tick = nil
        isActive = false
        routingSlice?.cancel()
        routingSlice = nil
        engineWake?.task.cancel()
        engineWake = nil
        if !isClosing {
            // SwiftNIO closes a datagram channel on a write error it cannot pin on one datagram,
            // and does not say which; the likeliest with runs is a kernel refusing them.
            logger.error(
                "The media port's socket closed on an error: every peer's media on it has stopped until the server restarts.",
                metadata: [
                    "shard": "\(shard)",
                    "hint": .string(
                        segmentationOffload
                            ? "runs the kernel cuts up (--media-gso) are refused where media is routed through kernel IPsec, or before Linux 6.11 by a device without checksum offload: restart with --media-gso off"
                            : "see the system's log"),
                ])
        }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard let source = TransportAddress(envelope.remoteAddress) else { return }
        // Into storage of its own, used again for the next datagram (the engine copies what it
        // keeps): the core decrypts it there (`MediaShardCore.receive`).
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: envelope.data.readableBytesView)
        if let replies = core.receive(datagram: &scratch, from: source, at: MediaClock.now()) {
            // What the router forwards waits for the end of the batch (`channelReadComplete`).
            write(replies, context: context)
        } else {
            pass(scratch, from: source, origin: shard, hopsLeft: shards.count - 1)
        }
    }

    // MARK: - Datagrams for other shards

    /// A datagram on its way to the shard that should have it.
    struct HandedDatagram: Sendable {
        let bytes: [UInt8]
        let source: TransportAddress
        /// The shard whose socket it reached.
        let origin: Int
        /// Shards still to try after the one it goes to.
        let hopsLeft: Int
    }

    /// Datagrams for other shards, by shard, and what origins should learn about addresses
    /// (claimed by a shard, or by none): sent once per read batch, one task per loop.
    private var outgoing: [Int: [HandedDatagram]] = [:]
    private var lessons: [Int: [(TransportAddress, Int?)]] = [:]

    /// Datagrams that reached other shards' sockets, handed over on this loop.
    func receiveHanded(_ batch: [HandedDatagram]) {
        guard let context else { return }
        for datagram in batch {
            var bytes = datagram.bytes
            guard let replies = core.receive(datagram: &bytes, from: datagram.source, at: MediaClock.now()) else {
                pass(datagram.bytes, from: datagram.source, origin: datagram.origin, hopsLeft: datagram.hopsLeft)
                continue
            }
            handedOver += 1
            metrics.datagramsHandedOver.increment()
            write(replies, context: context)
            lessons[datagram.origin, default: []].append((datagram.source, shard))
        }
        writeOutbox(context: context)
        flushIfNeeded(context: context)
        handOver()
        scheduleEngineWake()
    }

    /// Queues an unclaimed datagram for the next shard to try, or counts it when none is left.
    private func pass(_ datagram: [UInt8], from source: TransportAddress, origin: Int, hopsLeft: Int) {
        guard let (next, remaining) = nextShard(for: datagram, from: source, origin: origin, hopsLeft: hopsLeft) else {
            table.countUnclaimed()
            lessons[origin, default: []].append((source, nil))
            return
        }
        outgoing[next, default: []].append(HandedDatagram(bytes: datagram, source: source, origin: origin, hopsLeft: remaining))
    }

    /// Sends what was queued for other shards: one task per loop.
    private func handOver() {
        for (target, batch) in outgoing {
            shards[target].execute { $0.receiveHanded(batch) }
        }
        outgoing.removeAll(keepingCapacity: true)
        for (origin, learned) in lessons {
            if origin == shard {
                learn(learned)
            } else {
                shards[origin].execute { $0.learn(learned) }
            }
        }
        lessons.removeAll(keepingCapacity: true)
    }

    private func learn(_ learned: [(TransportAddress, Int?)]) {
        // Only a cache (a miss tries each shard in turn): emptied when full rather than let
        // the addresses of peers long gone pile up.
        if claimedElsewhere.count >= Self.claimedElsewhereLimit { claimedElsewhere.removeAll() }
        for (address, claimer) in learned { claimedElsewhere[address] = claimer }
    }

    static let claimedElsewhereLimit = 65_536

    /// Where to try next, and how many tries are left after it; nil when none.
    private func nextShard(for datagram: [UInt8], from source: TransportAddress, origin: Int, hopsLeft: Int) -> (Int, Int)? {
        guard hopsLeft > 0, shards.count > 1 else { return nil }
        if DatagramKind(classifying: datagram) == .stun {
            // A binding request names its shard; nothing else would know its ufrag.
            guard let named = MediaShard.index(inSTUN: datagram), named != shard, shards.indices.contains(named) else { return nil }
            return (named, 0)
        }
        if shard == origin, let known = claimedElsewhere[source], known != shard, shards.indices.contains(known) {
            return (known, shards.count - 2)
        }
        var next = (shard + 1) % shards.count
        if next == origin { next = (next + 1) % shards.count }
        return next == shard ? nil : (next, hopsLeft - 1)
    }

    // MARK: - ICE over TCP

    /// A packet from an ICE-TCP connection, on this loop.
    func receiveTCP(_ bytes: [UInt8], from source: TransportAddress, on connection: MediaTCPConnection) {
        guard let context else { return }
        var bytes = bytes
        if let replies = core.receive(datagram: &bytes, from: source, at: MediaClock.now()) {
            // Only a connection whose packets a peer claims carries that address's datagrams:
            // one nobody claims is no peer's, and must not take another's (a UDP peer's) address.
            tcpConnections[source] = connection
            write(replies, context: context)
            writeOutbox(context: context)
            flushIfNeeded(context: context)
            scheduleEngineWake()
        } else {
            table.countUnclaimed()
        }
    }

    /// An ICE-TCP connection closed: its peer is reached no more (its consent runs out).
    func tcpClosed(_ source: TransportAddress) {
        tcpConnections[source] = nil
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        writeOutbox(context: context)
        flushIfNeeded(context: context)
        handOver()
        scheduleEngineWake()
        context.fireChannelReadComplete()
    }

    /// Wakes the loop when the engines' next deadline falls due (`MediaShardCore.nextEngineDeadline`:
    /// a lost packet asked for again 30 ms after the ask, the periodic work every 50 ms): one
    /// timer at a time, moved earlier when an earlier deadline comes (a loss before the
    /// periodic work).
    func scheduleEngineWake() {
        guard isActive, let due = core.nextEngineDeadline, let context else { return }
        if let wake = engineWake {
            guard due < wake.at else { return }
            wake.task.cancel()
        }
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let task = context.eventLoop.scheduleTask(in: TimeAmount(max(.zero, due - MediaClock.now()))) {
            let handler = handler.value
            handler.engineWake = nil
            handler.core.handleEngineDeadlines(now: MediaClock.now())
            handler.send([])
            handler.continueRouting()
        }
        engineWake = (task, due)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A UDP socket reports ICMP errors (port unreachable) here: one peer's problem, not
        // the port's. Keep serving.
    }

    /// Runs the router's waiting routing slices, one per turn of the loop, until none is left.
    /// Scheduled a moment ahead rather than queued as a task: NIO runs the tasks queued while
    /// it runs tasks before it reads again, so a chain of them would hold the reads back.
    func continueRouting() {
        guard isActive, router.hasPendingRouting, routingSlice == nil, let context else { return }
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        routingSlice = context.eventLoop.scheduleTask(in: Self.routingSliceDelay) {
            let handler = handler.value
            handler.routingSlice = nil
            handler.router.continueRouting(now: MediaClock.now())
            handler.send([])
            handler.continueRouting()
        }
    }

    /// Enough for the loop to read what arrived between two routing slices.
    static let routingSliceDelay = TimeAmount.microseconds(50)

    /// Writes from outside a read (signalling, the timers), flushed at once; the engines' wake
    /// follows what changed (a new session's first peer starts its periodic work). Call on
    /// the loop.
    func send(_ datagrams: [AddressedDatagram]) {
        guard let context else { return }
        write(datagrams, context: context)
        writeOutbox(context: context)
        flushIfNeeded(context: context)
        scheduleEngineWake()
    }

    private func write(_ datagrams: [AddressedDatagram], context: ChannelHandlerContext) {
        guard !datagrams.isEmpty else { return }
        for datagram in datagrams {
            let buffer = context.channel.allocator.buffer(bytes: datagram.bytes)
            if !tcpConnections.isEmpty, let connection = tcpConnections[datagram.destination] {
                connection.write(buffer)
                continue
            }
            context.write(wrapOutboundOut(AddressedEnvelope(remoteAddress: datagram.destination.socketAddress, data: buffer)), promise: nil)
        }
        pendingFlush = true
    }

    /// What the router produced (forwarded RTP, RTCP: slices of its one buffer): with
    /// segmentation offload, each run of datagrams to one destination (`SegmentationPlan`) as
    /// one write the kernel cuts up, the rest as they are.
    private func writeOutbox(context: ChannelHandlerContext) {
        core.takeOutbox { datagrams, bytes in
            guard segmentationOffload, datagrams.count > 1 else {
                for datagram in datagrams { write(datagram, from: bytes, context: context) }
                return
            }
            let tcp = tcpConnections
            // Read by index, field by field: mapped over the elements, each datagram was copied
            // (its socket address retained and released) to read three of its fields.
            let plan = SegmentationPlan(
                datagrams.indices.lazy.map { (datagrams[$0].destination, datagrams[$0].length, datagrams[$0].stream) },
                joinable: { tcp.isEmpty || tcp[$0] == nil })
            for run in plan.runs {
                guard run.count > 1 else {
                    write(datagrams[run.first], from: bytes, context: context)
                    continue
                }
                var joined = context.channel.allocator.buffer(capacity: run.bytes)
                for member in plan.members(of: run) {
                    guard var slice = bytes.getSlice(at: datagrams[member].offset, length: datagrams[member].length) else { continue }
                    joined.writeBuffer(&slice)
                }
                let metadata = AddressedEnvelope<ByteBuffer>.Metadata(ecnState: .transportNotCapable, packetInfo: nil, segmentSize: run.segment)
                context.write(
                    wrapOutboundOut(AddressedEnvelope(remoteAddress: datagrams[run.first].socketAddress, data: joined, metadata: metadata)),
                    promise: nil)
                segmentedDatagrams += run.count
                metrics.segmentedDatagrams.increment(by: run.count)
            }
            pendingFlush = true
        }
    }

    private func write(_ datagram: ForwardedDatagram, from bytes: ByteBuffer, context: ChannelHandlerContext) {
        guard let slice = bytes.getSlice(at: datagram.offset, length: datagram.length) else { return }
        if !tcpConnections.isEmpty, let connection = tcpConnections[datagram.destination] {
            connection.write(slice)
            return
        }
        context.write(wrapOutboundOut(AddressedEnvelope(remoteAddress: datagram.socketAddress, data: slice)), promise: nil)
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
