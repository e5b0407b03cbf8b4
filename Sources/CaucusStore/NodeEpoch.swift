/// Which run of a node a node lease belongs to: each `caucus serve` process that starts with a
/// node's id takes the next one (`NodeLease.started`). A session names the run that owns it,
/// so the sessions of a node's previous run are not live in a new run's lease: they are taken
/// over (and rebuilt) like those of any node that stopped.
public struct NodeEpoch: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int64

    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// A node's first run.
    public static let first = NodeEpoch(rawValue: 1)

    public var next: NodeEpoch { NodeEpoch(rawValue: rawValue + 1) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "node epoch \(rawValue)" }
}

/// One run of a node: the node and the epoch of its lease. It owns sessions; its lease keeps
/// all of them live at once.
public struct NodeIncarnation: Hashable, Sendable, CustomStringConvertible {
    public let node: NodeID
    public let epoch: NodeEpoch

    public init(node: NodeID, epoch: NodeEpoch) {
        self.node = node
        self.epoch = epoch
    }

    public var description: String { "\(node) at \(epoch)" }
}
