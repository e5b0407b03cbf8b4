import NIOCore
import NIOConcurrencyHelpers
import CoreMetrics
import Atomics

/// One client's way out. Frames, already framed (`ServerFrames`), go straight to the socket's
/// channel (no task per client on the way), and what the socket has not taken yet is bounded,
/// in frames and in bytes: a client that cannot keep up is cut off rather than allowed to stall
/// its session or grow the server's memory (1,024 snapshots of a big session are gigabytes).
public final class ClientConnection: Sendable {
    let channel: any Channel
    private let queueLimit: Int
    private let byteLimit: Int
    /// Frames written but not yet handed to the kernel.
    private let inFlight = ManagedAtomic<Int>(0)
    /// Their bytes.
    private let inFlightBytes = ManagedAtomic<Int>(0)
    private let closed = ManagedAtomic<Bool>(false)
    private let slowClientsDropped: CoreMetrics.Counter?
    /// A replay being written (see `sendReplay`), and the frames queued behind it.
    let replay: NIOLoopBoundBox<ReplayStream?>
    /// Requests the session answered as it broke (`answeredAtBreak`): nothing answers them again.
    private let answeredBySession = NIOLockedValueBox<Set<Int>>([])

    init(queueLimit: Int, byteLimit: Int = 64 << 20, channel: any Channel, slowClientsDropped: CoreMetrics.Counter? = nil) {
        self.queueLimit = queueLimit
        self.byteLimit = byteLimit
        self.channel = channel
        self.slowClientsDropped = slowClientsDropped
        self.replay = .makeEmptyBox(valueType: ReplayStream.self, eventLoop: channel.eventLoop)
    }

    var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Closed by the server, or by its client (its socket gone, whether or not its handler
    /// has read that far yet).
    var isGone: Bool { isClosed || !channel.isActive }

    /// Queues a frame. Returns false if the connection is closed or just overflowed.
    @discardableResult
    func send(_ frame: ByteBuffer) -> Bool { send(CollectionOfOne(frame)) }

    /// Queues frames, in order, with one trip to the socket's event loop and one flush.
    @discardableResult
    func send(_ frames: some Collection<ByteBuffer> & Sendable) -> Bool {
        let bytes = frames.reduce(0) { $0 + $1.readableBytes }
        guard admit(frames.count, bytes: bytes) else { return false }
        channel.eventLoop.execute { self.write(frames, counting: frames.count, bytes: bytes) }
        return true
    }

    /// Sends each connection its frames with one trip per event loop, not one per connection:
    /// a move of 1,000 users is two hops on a 2-core server, not 1,000.
    /// Returns the number of frames sent.
    static func send(_ batches: [(connection: ClientConnection, frames: [ByteBuffer])]) -> Int {
        dispatch(batches.map { ($0.connection, $0.frames, $0.frames.count) })
    }

    /// Sends every connection the same frames, joined once into one buffer that all of them
    /// write (held roster news, which everyone present was owed alike), with one trip per
    /// event loop. Returns the number of frames sent.
    static func send(_ frames: [ByteBuffer], toEach connections: [ClientConnection]) -> Int {
        guard var joined = frames.first else { return 0 }
        if frames.count > 1 {
            joined = ByteBufferAllocator().buffer(capacity: frames.reduce(0) { $0 + $1.readableBytes })
            for frame in frames { joined.writeImmutableBuffer(frame) }
        }
        return dispatch(connections.map { ($0, [joined], frames.count) })
    }

    /// Admits each write (counting the frames its buffers hold), then hands the admitted ones
    /// to their event loops, one trip per loop.
    private static func dispatch(_ writes: [(connection: ClientConnection, buffers: [ByteBuffer], frames: Int)]) -> Int {
        var byLoop: [ObjectIdentifier: (loop: any EventLoop, writes: [(ClientConnection, [ByteBuffer], Int, Int)])] = [:]
        var sent = 0
        for write in writes {
            let bytes = write.buffers.reduce(0) { $0 + $1.readableBytes }
            guard write.connection.admit(write.frames, bytes: bytes) else { continue }
            let loop = write.connection.channel.eventLoop
            byLoop[ObjectIdentifier(loop), default: (loop, [])].writes.append((write.connection, write.buffers, write.frames, bytes))
            sent += write.frames
        }
        for (loop, writes) in byLoop.values {
            loop.execute { for (connection, buffers, frames, bytes) in writes { connection.write(buffers, counting: frames, bytes: bytes) } }
        }
        return sent
    }

    /// Counts frames and their bytes in before they are written: false if closed, or if this
    /// overflows either bound (the client is then cut off). A write that finds nothing queued
    /// is taken whatever its size (one large snapshot is not a slow client).
    private func admit(_ count: Int, bytes: Int) -> Bool {
        guard !isClosed, count > 0 else { return false }
        let frames = inFlight.wrappingIncrementThenLoad(by: count, ordering: .relaxed)
        let queuedBytes = inFlightBytes.wrappingIncrementThenLoad(by: bytes, ordering: .relaxed)
        guard frames <= queueLimit, queuedBytes <= byteLimit || queuedBytes == bytes else {
            // The socket has not taken what the bounds allow: this client is too slow.
            slowClientsDropped?.increment()
            close(.tooSlow, reason: "Outbound queue full: the client is not reading fast enough.")
            return false
        }
        return true
    }

    /// Writes admitted frames and flushes; on the channel's event loop. `count` is how many
    /// frames the buffers hold (one buffer may carry several). Behind a replay they wait.
    private func write(_ buffers: some Collection<ByteBuffer>, counting count: Int, bytes: Int) {
        if replay.value != nil {
            replay.value!.behind.append((Array(buffers), count, bytes))
            return
        }
        writeNow(buffers, counting: count, bytes: bytes)
    }

    /// `count` frames of `bytes` bytes in all, as admitted (0 and 0 for what was not).
    func writeNow(_ buffers: some Collection<ByteBuffer>, counting count: Int, bytes: Int) {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        var remaining = buffers.count
        for frame in buffers {
            remaining -= 1
            channel.write(frame, promise: remaining == 0 ? promise : nil)
        }
        channel.flush()
        promise.futureResult.whenComplete { _ in
            self.inFlight.wrappingDecrement(by: count, ordering: .relaxed)
            self.inFlightBytes.wrappingDecrement(by: bytes, ordering: .relaxed)
        }
    }

    /// The answer to request `id`. Once the session broke and asked for the close (4006,
    /// 4007), the answer to the request in hand still goes out before the close frame: the
    /// handler holds that close until the request is done (a request that reached the session
    /// after it broke is answered here, by its conversation). An answer the session already
    /// gave as it broke is not given twice.
    func answer(_ frame: ByteBuffer, to id: Int) {
        // The session marks what it answered before it asks for the close: an open connection
        // has nothing marked, and its answers take no lock.
        guard isClosed else {
            send(frame)
            return
        }
        guard !answeredBySession.withLockedValue({ $0.contains(id) }) else { return }
        // Past the close the bound no longer matters: one answer, for the request in hand.
        channel.eventLoop.execute { self.write(CollectionOfOne(frame), counting: 0, bytes: 0) }
    }

    /// The session answered these requests as it broke, before asking for the close.
    func answeredAtBreak(_ ids: [Int]) {
        answeredBySession.withLockedValue { $0.formUnion(ids) }
    }

    /// A `join` or `resume` on this connection was refused: it may try again, within the
    /// join deadline from now.
    func joinRefused() {
        guard !isClosed else { return }
        channel.triggerUserOutboundEvent(WebSocketConnectionHandler.JoinRefused(), promise: nil)
    }

    /// A `join` or `resume` on this connection was taken: it no longer waits to join. Call it
    /// before its reply is sent: both go through the channel's event loop in order, so the
    /// address's place among the waiting connections is free before the reply can be read.
    func joinTaken() {
        guard !isClosed else { return }
        channel.triggerUserOutboundEvent(WebSocketConnectionHandler.JoinTaken(), promise: nil)
    }

    /// Frames (and their bytes) admitted but never to be written (the socket went away during a replay).
    func releaseUnwritten(_ count: Int, bytes: Int) {
        inFlight.wrappingDecrement(by: count, ordering: .relaxed)
        inFlightBytes.wrappingDecrement(by: bytes, ordering: .relaxed)
    }

    /// Closes the connection after what is already queued, with a close frame (a slow client
    /// is dropped at once instead).
    func close(_ code: CloseCode, reason: String) {
        guard closed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        channel.triggerUserOutboundEvent(WebSocketConnectionHandler.CloseRequest(code: code, reason: reason), promise: nil)
    }
}

/// WebSocket close codes the server uses (4xxx are Caucus's own; see docs/protocol.md).
public enum CloseCode: UInt16, Sendable {
    case normal = 1000
    /// The server is restarting or shutting down: reconnect and resume.
    case serviceRestart = 1012
    case tooSlow = 4001
    case sessionEnded = 4002
    case removed = 4003
    /// Another connection resumed this seat.
    case replaced = 4004
    case left = 4005
    /// The session's store failed; reconnect and resume.
    case storeFailure = 4006
    /// Several nodes: another node took the session over (this one lost its lease);
    /// reconnect and resume, through any node.
    case moved = 4007
    /// The connection did not join (or resume) within the join deadline.
    case joinDeadline = 4008
    /// The connection's address already has as many connections waiting to join as allowed.
    case tooManyWaiting = 4009
}
