import NIOCore
import NIOWebSocket
import Synchronization

/// One client's way out. Frames go straight to the socket's channel (no task per client on
/// the way), and the number not yet taken by the socket is bounded: a client that cannot
/// keep up is cut off rather than allowed to stall its session or grow the server's memory.
public final class ClientConnection: Sendable {
    public enum Outgoing: Sendable {
        case close(CloseCode, reason: String)
    }

    let id: Int
    private let channel: (any Channel)?
    private let queueLimit: Int
    /// Frames written but not yet handed to the kernel.
    private let inFlight = Atomic<Int>(0)
    private let continuation: AsyncStream<Outgoing>.Continuation
    /// Closes, for the socket's writer to perform with a proper close frame.
    let outgoing: AsyncStream<Outgoing>
    private let closed = Atomic<Bool>(false)

    init(id: Int, queueLimit: Int, channel: (any Channel)?) {
        self.id = id
        self.queueLimit = queueLimit
        self.channel = channel
        (outgoing, continuation) = AsyncStream.makeStream(of: Outgoing.self)
    }

    var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Queues a text frame. Returns false if the connection is closed or just overflowed.
    @discardableResult
    func send(_ frame: ByteBuffer) -> Bool { send([frame]) }

    /// Queues text frames, in order, with one trip to the socket's event loop and one flush.
    @discardableResult
    func send(_ frames: [ByteBuffer]) -> Bool {
        guard !isClosed, let channel, !frames.isEmpty else { return false }
        guard inFlight.add(frames.count, ordering: .relaxed).newValue <= queueLimit else {
            // The socket has not taken the last `queueLimit` frames: this client is too slow.
            close(.tooSlow, reason: "Outbound queue full: the client is not reading fast enough.")
            return false
        }
        let count = frames.count
        channel.eventLoop.execute {
            for frame in frames.dropLast() {
                channel.write(WebSocketFrame(fin: true, opcode: .text, data: frame), promise: nil)
            }
            let last = channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: frames[count - 1]))
            last.whenComplete { _ in self.inFlight.subtract(count, ordering: .relaxed) }
        }
        return true
    }

    /// Closes the connection after what is already queued (a slow client is dropped at once).
    func close(_ code: CloseCode, reason: String) {
        guard closed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        onClose.withLock { $0?(code, reason) }
        continuation.yield(.close(code, reason: reason))
        continuation.finish()
    }

    /// Called once, when the connection is closed from the server side.
    let onClose = Mutex<(@Sendable (CloseCode, String) -> Void)?>(nil)
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
}
