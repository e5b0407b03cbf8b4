import Synchronization

/// Hands events to every `AsyncStream` subscriber and to the delegate's queue, in order.
final class EventHub: Sendable {
    private struct Subscribers {
        var next = 0
        var streams: [Int: AsyncStream<SessionEvent>.Continuation] = [:]
    }

    private let subscribers = Mutex(Subscribers())
    /// The delegate's queue, drained by one task (see `CaucusSession`).
    let delegateQueue: AsyncStream<SessionEvent>
    private let delegateInput: AsyncStream<SessionEvent>.Continuation
    /// Whether anyone reads the delegate's queue; without a delegate nothing is queued.
    private let delegateAttached = Atomic<Bool>(false)

    init() {
        (delegateQueue, delegateInput) = AsyncStream.makeStream(of: SessionEvent.self)
    }

    /// A new stream of every event from now on.
    func subscribe() -> AsyncStream<SessionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: SessionEvent.self)
        let id = subscribers.withLock { subscribers in
            defer { subscribers.next += 1 }
            subscribers.streams[subscribers.next] = continuation
            return subscribers.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    func setDelegateAttached(_ attached: Bool) { delegateAttached.store(attached, ordering: .releasing) }

    func emit(_ events: [SessionEvent]) {
        guard !events.isEmpty else { return }
        let streams = subscribers.withLock { Array($0.streams.values) }
        let toDelegate = delegateAttached.load(ordering: .acquiring)
        for event in events {
            for stream in streams { stream.yield(event) }
            if toDelegate { delegateInput.yield(event) }
        }
    }

    func emit(_ event: SessionEvent) { emit([event]) }

    /// Ends every stream (the session object is gone).
    func finish() {
        let streams = subscribers.withLock { subscribers in
            defer { subscribers.streams.removeAll() }
            return Array(subscribers.streams.values)
        }
        for stream in streams { stream.finish() }
        delegateInput.finish()
    }
}
