import CoreMetrics
import NIOConcurrencyHelpers

/// Bounds the WebSocket connections that have not joined yet: each address may hold so many
/// at once, and each has a deadline to join (`WebSocketConnectionHandler`). An upgraded socket
/// costs memory before it proves anything (no token is read before `join`), so sockets that
/// never join must neither stay for ever nor be opened without bound from one place.
final class JoinAdmission: Sendable {
    /// How long a connection may stay without joining; after a refused `join` or `resume`,
    /// how long it has to try again.
    let deadline: Duration
    /// Connections not yet joined that one remote address may hold.
    let limitPerAddress: Int
    private let waiting = NIOLockedValueBox<[String: Int]>([:])
    /// Connections closed at the deadline, and connections refused over the address's limit.
    private let expired: CoreMetrics.Counter?
    private let refused: CoreMetrics.Counter?

    init(deadline: Duration, limitPerAddress: Int, expired: CoreMetrics.Counter? = nil, refused: CoreMetrics.Counter? = nil) {
        self.deadline = deadline
        self.limitPerAddress = limitPerAddress
        self.expired = expired
        self.refused = refused
    }

    /// Counts a new connection from `address` as waiting to join; false (and counted as
    /// refused) if the address already has its limit.
    func admit(_ address: String) -> Bool {
        let admitted = waiting.withLockedValue { waiting in
            guard waiting[address, default: 0] < limitPerAddress else { return false }
            waiting[address, default: 0] += 1
            return true
        }
        if !admitted { refused?.increment() }
        return admitted
    }

    /// A connection admitted from `address` joined or closed.
    func release(_ address: String) {
        waiting.withLockedValue { waiting in
            guard let count = waiting[address] else { return }
            waiting[address] = count > 1 ? count - 1 : nil
        }
    }

    /// A connection was closed for not joining in time.
    func deadlinePassed() { expired?.increment() }

    /// Connections from `address` waiting to join (for tests).
    func waitingCount(from address: String) -> Int { waiting.withLockedValue { $0[address] ?? 0 } }
}
