import Caucus
import CaucusCore
import Foundation
import NIOConcurrencyHelpers

/// Every event one session delivered, in order. Tests take the events they expect, in turn;
/// each wait is bounded.
final class EventLog: Sendable {
    private let state = NIOLockedValueBox(State())

    private struct State {
        var events: [SessionEvent] = []
        var taken: Set<Int> = []
    }

    init(_ stream: AsyncStream<SessionEvent>) {
        Task { [weak self] in
            for await event in stream { self?.state.withLockedValue { $0.events.append(event) } }
        }
    }

    var all: [SessionEvent] { state.withLockedValue { $0.events } }

    /// The first event not taken yet for which `match` gives a value; waits for it if needed.
    @discardableResult
    func next<T: Sendable>(
        seconds: Double = 15, _ what: String, _ match: @escaping @Sendable (SessionEvent) -> T?
    ) async throws -> T {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            let found: T? = state.withLockedValue { state in
                for index in state.events.indices where !state.taken.contains(index) {
                    if let value = match(state.events[index]) {
                        state.taken.insert(index)
                        return value
                    }
                }
                return nil
            }
            if let found { return found }
            guard ContinuousClock.now < deadline else { throw TestFailure("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The values `match` gives for every event so far, in order.
    func values<T>(_ match: (SessionEvent) -> T?) -> [T] { all.compactMap(match) }
}
