import NIOConcurrencyHelpers

/// Hands each value to every current subscriber's stream. A subscriber that falls behind
/// keeps the newest `bufferLimit` values (old frames are worth less than a bounded memory).
final class MediaBroadcast<Element: Sendable>: Sendable {
    private struct Subscribers {
        var next = 0
        var continuations: [Int: AsyncStream<Element>.Continuation] = [:]
    }

    private let subscribers = NIOLockedValueBox(Subscribers())
    private let bufferLimit: Int

    init(bufferLimit: Int) { self.bufferLimit = bufferLimit }

    /// A new stream of every value from now on.
    func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        let id = subscribers.withLockedValue { subscribers in
            defer { subscribers.next += 1 }
            subscribers.continuations[subscribers.next] = continuation
            return subscribers.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLockedValue { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    func yield(_ value: Element) {
        for continuation in subscribers.withLockedValue({ Array($0.continuations.values) }) { continuation.yield(value) }
    }

    /// Ends every stream.
    func finish() {
        for continuation in subscribers.withLockedValue({ Array($0.continuations.values) }) { continuation.finish() }
    }
}
