import NIOConcurrencyHelpers

/// The requests being handled right now, each in a task of its own (an idle socket holds no
/// task, see `WebSocketConnectionHandler`). A stopping server waits until they are done, so
/// no request task outlives the store it writes to.
final class InFlightRequests: Sendable {
    private struct State {
        var running = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = NIOLockedValueBox(State())

    var count: Int { state.withLockedValue { $0.running } }

    /// A request starts; call `end()` when it is done.
    func begin() {
        state.withLockedValue { $0.running += 1 }
    }

    func end() {
        let done = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            state.running -= 1
            guard state.running == 0 else { return [] }
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for waiter in done { waiter.resume() }
    }

    /// Returns once no request is being handled.
    func drained() async {
        await withCheckedContinuation { continuation in
            let now = state.withLockedValue { state -> Bool in
                guard state.running > 0 else { return true }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
