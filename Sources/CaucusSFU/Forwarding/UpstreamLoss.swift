import CaucusMedia

/// Packets a publisher stream lost on its way to the server, found by the gaps in its sequence
/// numbers, asked for again at once and re-asked until they come or ``maximumAsks`` is spent.
/// The repair starts before any subscriber notices, and a retransmission lost again is asked
/// for after ``retryInterval`` rather than after a subscriber's own retry (browsers that cannot
/// measure the round trip wait 100 ms). What a subscriber NACKs that is still missing here is
/// left to this tracker.
///
/// Bounded: a gap of more than ``largestGap`` numbers is a restart, not a loss, and at most
/// ``capacity`` numbers are tracked (the oldest are given up first).
public struct UpstreamLoss: Sendable {
    public static let retryInterval = Duration.milliseconds(30)
    public static let maximumAsks = 5
    public static let largestGap = 100
    public static let capacity = 256

    private var highest: UInt16?
    /// Missing number → when it was last asked for, and how often.
    private var missing: [UInt16: (askedAt: Duration, asks: Int)] = [:]

    public init() {}

    /// Whether `sequenceNumber` is known to be missing (asked for, not yet here).
    public func isMissing(_ sequenceNumber: UInt16) -> Bool { missing[sequenceNumber] != nil }

    /// A packet arrived; returns the numbers to ask for now (a new gap before it).
    public mutating func received(_ sequenceNumber: UInt16, at now: Duration) -> [UInt16] {
        guard let last = highest else {
            highest = sequenceNumber
            return []
        }
        let ahead = sequenceNumber &- last
        guard ahead != 0, ahead < 0x8000 else {
            // Late: a retransmission or a reordered packet fills its gap.
            missing[sequenceNumber] = nil
            return []
        }
        highest = sequenceNumber
        guard ahead > 1 else { return [] }
        guard Int(ahead) - 1 <= Self.largestGap else {
            missing.removeAll()
            return []
        }
        let gap = (1..<ahead).map { last &+ $0 }
        for lost in gap { missing[lost] = (now, 1) }
        if missing.count > Self.capacity {
            // Give up the oldest numbers first (furthest behind the highest).
            let byAge = missing.keys.sorted { (sequenceNumber &- $0) > (sequenceNumber &- $1) }
            for old in byAge.prefix(missing.count - Self.capacity) { missing[old] = nil }
        }
        return gap
    }

    /// When the next number falls due to be asked for again (``retryInterval`` after its last
    /// ask); nil when nothing is missing.
    public var nextDeadline: Duration? {
        missing.values.lazy.map(\.askedAt).min().map { $0 + Self.retryInterval }
    }

    /// The numbers to ask for again at `now`: unanswered for ``retryInterval``; those asked
    /// ``maximumAsks`` times are given up.
    public mutating func due(at now: Duration) -> [UInt16] { dueAndGivenUp(at: now).ask }

    /// As ``due(at:)``, and how many numbers were given up now: gaps that stay open for every
    /// subscriber, which only a keyframe mends.
    public mutating func dueAndGivenUp(at now: Duration) -> (ask: [UInt16], givenUp: Int) {
        guard !missing.isEmpty else { return ([], 0) }
        var ask: [UInt16] = []
        var givenUp = 0
        for (sequenceNumber, state) in missing where now - state.askedAt >= Self.retryInterval {
            if state.asks >= Self.maximumAsks {
                missing[sequenceNumber] = nil
                givenUp += 1
            } else {
                missing[sequenceNumber] = (now, state.asks + 1)
                ask.append(sequenceNumber)
            }
        }
        let newest = highest ?? 0
        return (ask.sorted { (newest &- $0) > (newest &- $1) }, givenUp)
    }
}
