import CaucusMedia

/// Which lost packets the server has already asked a publisher to send again, so that many
/// subscribers missing the same packet (or one subscriber asking twice) cost the publisher one
/// NACK per ``interval``. Bounded: entries older than ``interval`` are dropped as it goes.
public struct UpstreamNACKs: Sendable {
    public static let interval = Duration.milliseconds(100)
    static let limit = 4_096

    private var askedAt: [UInt32: [UInt16: Duration]] = [:]
    private var count = 0

    public init() {}

    /// Of `lost` (numbers of the publisher stream `ssrc`), those to ask for now.
    public mutating func toAsk(_ lost: [UInt16], of ssrc: UInt32, at now: Duration) -> [UInt16] {
        if count >= Self.limit { prune(at: now) }
        var ask: [UInt16] = []
        var asked = askedAt[ssrc, default: [:]]
        for sequenceNumber in lost {
            if let at = asked[sequenceNumber], now - at < Self.interval { continue }
            if asked[sequenceNumber] == nil { count += 1 }
            asked[sequenceNumber] = now
            ask.append(sequenceNumber)
        }
        askedAt[ssrc] = asked
        return ask
    }

    public mutating func forget(_ ssrc: UInt32) {
        count -= askedAt.removeValue(forKey: ssrc)?.count ?? 0
    }

    private mutating func prune(at now: Duration) {
        askedAt = askedAt.compactMapValues { asked in
            let kept = asked.filter { now - $0.value < Self.interval }
            return kept.isEmpty ? nil : kept
        }
        count = askedAt.values.reduce(0) { $0 + $1.count }
        // Still full of fresh entries (a flood of NACKs): start over rather than grow.
        if count >= Self.limit {
            askedAt = [:]
            count = 0
        }
    }
}
