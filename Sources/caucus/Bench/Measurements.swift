import Histogram
import Atomics
import NIOConcurrencyHelpers

/// Latencies in microseconds, kept in an HdrHistogram.
struct Latencies: Sendable {
    private var histogram = Histogram<UInt64>(highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)

    mutating func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        _ = histogram.record(UInt64(Swift.max(0, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)))
    }

    var count: UInt64 { histogram.totalCount }
    func percentile(_ percentile: Double) -> Double { Double(histogram.valueAtPercentile(percentile)) / 1000 }
    var p50: Double { percentile(50) }
    var p99: Double { percentile(99) }
    var max: Double { Double(histogram.max) / 1000 }
}

/// Waits until `expected` arrivals have been counted and remembers the last one's time.
final class Arrivals: Sendable {
    private struct State {
        var expected: Int
        var count = 0
        var last: ContinuousClock.Instant?
        var first: ContinuousClock.Instant?
        var waiter: CheckedContinuation<ContinuousClock.Instant, Never>?
    }

    private let state: NIOLockedValueBox<State>

    init(expecting expected: Int) { state = NIOLockedValueBox(State(expected: expected)) }

    func arrived(at time: ContinuousClock.Instant) {
        let done: (CheckedContinuation<ContinuousClock.Instant, Never>, ContinuousClock.Instant)? = state.withLockedValue { state in
            state.count += 1
            state.last = Swift.max(state.last ?? time, time)
            state.first = Swift.min(state.first ?? time, time)
            guard state.count == state.expected, let waiter = state.waiter, let last = state.last else { return nil }
            state.waiter = nil
            return (waiter, last)
        }
        if let (waiter, last) = done { waiter.resume(returning: last) }
    }

    var count: Int { state.withLockedValue { $0.count } }
    var expected: Int { state.withLockedValue { $0.expected } }
    var first: ContinuousClock.Instant? { state.withLockedValue { $0.first } }
    var last: ContinuousClock.Instant? { state.withLockedValue { $0.last } }

    /// The time of the last expected arrival.
    func all() async -> ContinuousClock.Instant {
        await withCheckedContinuation { continuation in
            let ready: ContinuousClock.Instant? = state.withLockedValue { state in
                if state.count >= state.expected { return state.last }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// A table (or JSON) of named figures.
struct Report {
    let scenario: String
    var rows: [(String, String)] = []

    mutating func add(_ name: String, _ value: String) { rows.append((name, value)) }
    mutating func add(_ name: String, milliseconds: Double) { rows.append((name, milliseconds.formatted(decimals: 2) + " ms")) }

    func print(json: Bool) {
        if json {
            let fields = [("scenario", scenario)] + rows
            Swift.print("{" + fields.map { "\"\($0.0)\": \"\($0.1)\"" }.joined(separator: ", ") + "}")
        } else {
            let width = rows.map(\.0.count).max() ?? 0
            Swift.print("scenario " + scenario)
            for (name, value) in rows { Swift.print(name + String(repeating: " ", count: width - name.count + 2) + value) }
        }
    }
}

extension Double {
    func formatted(decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let rounded = (self * scale).rounded() / scale
        return "\(rounded)"
    }
}

extension Array where Element == Double {
    /// The value at a percentile of the sorted values (nearest rank).
    func percentile(_ percentile: Double) -> Double {
        guard !isEmpty else { return 0 }
        let sorted = self.sorted()
        let rank = Int((percentile / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[Swift.max(0, Swift.min(sorted.count - 1, rank))]
    }
}

extension Duration {
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}

/// A value several tasks update, behind a lock, shareable by reference.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: NIOLockedValueBox<Value>
    init(_ value: Value) { mutex = NIOLockedValueBox(value) }
    func withLockedValue<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLockedValue { body(&$0) } }
}

/// A counter several tasks bump, shareable by reference.
final class Counter: Sendable {
    private let value = ManagedAtomic<Int>(0)
    func add(_ amount: Int = 1) { value.wrappingIncrement(by: amount, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}
