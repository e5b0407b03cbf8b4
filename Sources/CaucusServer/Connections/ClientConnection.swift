import NIOCore
import Synchronization

/// One client's way out: a bounded queue of encoded frames drained by the socket's writer.
/// A client that cannot keep up is cut off rather than allowed to stall its session: when
/// the queue is full the connection is closed with `CloseCode.tooSlow`.
public final class ClientConnection: Sendable {
    public enum Outgoing: Sendable {
        case frame(ByteBuffer)
        case close(CloseCode, reason: String)
    }

    let id: Int
    private let continuation: AsyncStream<Outgoing>.Continuation
    let outgoing: AsyncStream<Outgoing>
    private let closed = Atomic<Bool>(false)

    init(id: Int, queueLimit: Int) {
        self.id = id
        (outgoing, continuation) = AsyncStream.makeStream(of: Outgoing.self, bufferingPolicy: .bufferingOldest(queueLimit))
    }

    var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Queues a frame. Returns false if the connection is closed or just overflowed.
    @discardableResult
    func send(_ frame: ByteBuffer) -> Bool {
        guard !isClosed else { return false }
        switch continuation.yield(.frame(frame)) {
        case .enqueued: return true
        case .dropped:
            // The queue is full: this client is too slow. A close frame queued behind frames it
            // is not reading would never arrive, so `onClose` drops the socket at once.
            close(.tooSlow, reason: "Outbound queue full: the client is not reading fast enough.")
            return false
        case .terminated: return false
        @unknown default: return false
        }
    }

    /// Closes the connection after (or, for a slow client, instead of) what is queued.
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
