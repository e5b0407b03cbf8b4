import NIOConcurrencyHelpers

/// Hands events to every `AsyncStream` subscriber and to the delegate's queue, in order.
final class EventHub: Sendable {
    private struct Subscribers {
        var next = 0
        var streams: [Int: AsyncStream<SessionEvent>.Continuation] = [:]
    }

    private let subscribers = NIOLockedValueBox(Subscribers())
    /// The delegate's queue, drained by one task (see `CaucusSession`).
    let delegateQueue: AsyncStream<SessionEvent>
    private let delegateInput: AsyncStream<SessionEvent>.Continuation
    /// Whether anyone reads the delegate's queue; without a delegate nothing is queued.
    private let delegateAttached = NIOLockedValueBox(false)

    init() {
        (delegateQueue, delegateInput) = AsyncStream.makeStream(of: SessionEvent.self)
    }

    /// A new stream of every event from now on.
    func subscribe() -> AsyncStream<SessionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: SessionEvent.self)
        let id = subscribers.withLockedValue { subscribers in
            defer { subscribers.next += 1 }
            subscribers.streams[subscribers.next] = continuation
            return subscribers.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLockedValue { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    func setDelegateAttached(_ attached: Bool) { delegateAttached.withLockedValue { $0 = attached } }

    func emit(_ events: [SessionEvent]) {
        guard !events.isEmpty else { return }
        let streams = subscribers.withLockedValue { Array($0.streams.values) }
        let toDelegate = delegateAttached.withLockedValue { $0 }
        for event in events {
            for stream in streams { stream.yield(event) }
            if toDelegate { delegateInput.yield(event) }
        }
    }

    func emit(_ event: SessionEvent) { emit([event]) }

    /// Ends every stream (the session object is gone).
    func finish() {
        let streams = subscribers.withLockedValue { subscribers in
            defer { subscribers.streams.removeAll() }
            return Array(subscribers.streams.values)
        }
        for stream in streams { stream.finish() }
        delegateInput.finish()
    }
}
