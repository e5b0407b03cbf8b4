import CaucusMedia

/// A probe of a subscriber's link: a few packets sent back to back, as a cluster. A link's
/// narrowest point spreads them out to its own rate, so the rate at which they *arrive* is what
/// the link can carry — measured with a few kilobytes, instead of by sending a better layer and
/// seeing it fail.
public struct ProbeCluster: Hashable, Sendable {
    public let id: Int
    /// The rate (bits per second) the link must be seen to carry for the probe to succeed.
    public let level: Int

    public init(id: Int, level: Int) {
        self.id = id
        self.level = level
    }
}

/// What a probe found.
public enum ProbeOutcome: Hashable, Sendable {
    /// Its packets arrived at `rate` (bits per second), at least nine tenths of its level.
    case carried(rate: Int)
    /// They arrived slower than that, or more than a fifth of them were lost.
    case notCarried
}

/// A cluster's packets as the feedback reports them.
struct ProbeClusterMeasurement {
    let cluster: ProbeCluster
    var sent = 0
    var reported = 0
    var lost = 0
    var arrivals: [(at: Int64, size: Int)] = []

    init(cluster: ProbeCluster) {
        self.cluster = cluster
    }

    /// Nil until every packet of the cluster is reported.
    var outcome: ProbeOutcome? {
        guard reported >= sent else { return nil }
        guard lost * 5 <= sent, arrivals.count >= 2 else { return .notCarried }
        let ordered = arrivals.sorted { $0.at < $1.at }
        let span = ordered.last!.at - ordered.first!.at
        // The first packet's bytes arrived before the span began.
        let bytes = Int64(ordered.dropFirst().map(\.size).reduce(0, +))
        let rate = span > 0 ? Int(min(bytes * 8_000_000 / span, Int64(Int32.max))) : Int(Int32.max)
        return rate * 10 >= cluster.level * 9 ? .carried(rate: rate) : .notCarried
    }
}
