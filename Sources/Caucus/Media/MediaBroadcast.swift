import NIOConcurrencyHelpers

/// Hands each value to every current subscriber's stream. A subscriber that falls behind
/// keeps the newest `bufferLimit` values (old frames are worth less than a bounded memory).
final class MediaBroadcast<Element: Sendable>: Sendable {
    private struct Subscriber {
        let continuation: AsyncStream<Element>.Continuation
        /// Which values this subscriber takes (one user's frames, say); nil for all.
        let accepts: (@Sendable (Element) -> Bool)?
    }

    private struct Subscribers {
        var next = 0
        var all: [Int: Subscriber] = [:]
    }

    private let subscribers = NIOLockedValueBox(Subscribers())
    private let bufferLimit: Int

    init(bufferLimit: Int) { self.bufferLimit = bufferLimit }

    /// A new stream of every value from now on (of those `accepts` takes, when given: the
    /// buffer then holds only them, so one busy publisher cannot push another's out).
    func subscribe(where accepts: (@Sendable (Element) -> Bool)? = nil) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        let id = subscribers.withLockedValue { subscribers in
            defer { subscribers.next += 1 }
            subscribers.all[subscribers.next] = Subscriber(continuation: continuation, accepts: accepts)
            return subscribers.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLockedValue { $0.all.removeValue(forKey: id) }
        }
        return stream
    }

    func yield(_ value: Element) {
        for subscriber in subscribers.withLockedValue({ Array($0.all.values) }) where subscriber.accepts?(value) ?? true {
            subscriber.continuation.yield(value)
        }
    }

    /// Ends every stream.
    func finish() {
        for subscriber in subscribers.withLockedValue({ Array($0.all.values) }) { subscriber.continuation.finish() }
    }
}
