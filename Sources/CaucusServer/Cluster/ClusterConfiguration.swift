import CaucusStore

/// How a node runs beside others on one PostgreSQL store (`caucus serve --node-url`).
public struct ClusterConfiguration: Sendable {
    /// This node's address as clients and the other nodes reach it (`http://host:port`, no
    /// path). It is the node's id in the store's leases, so a node that is told another holds
    /// a session knows where to send its clients (`ws://host:port/ws`).
    public var nodeURL: String
    /// How long a lease lasts without renewal: a dead node's sessions move this long after it
    /// stopped renewing. The holder renews every third of it.
    public var leaseDuration: Duration

    public static let defaultLeaseDuration = Duration.seconds(10)

    public init(nodeURL: String, leaseDuration: Duration = Self.defaultLeaseDuration) {
        self.nodeURL = nodeURL
        self.leaseDuration = leaseDuration
    }

    public var node: NodeID { NodeID(nodeURL) }

    /// How long before a lease runs out unrenewed, by this node's clock, the node gives its
    /// sessions up (`HeldNodeLease`): a quarter of the lease (2.5 s of the default 10 s), for the
    /// closing to be done and for other nodes' clocks running a little ahead.
    var giveUpMargin: Duration { leaseDuration / 4 }
}

extension NodeID {
    /// The node's HTTP base (its `nodeURL`, without a trailing slash), which control API
    /// paths follow.
    var httpBase: String {
        var base = rawValue
        while base.hasSuffix("/") { base.removeLast() }
        return base
    }

    /// The WebSocket endpoint of the node this id names.
    var webSocketURL: String {
        let base = httpBase
        if base.hasPrefix("https://") { return "wss://" + base.dropFirst("https://".count) + "/ws" }
        if base.hasPrefix("http://") { return "ws://" + base.dropFirst("http://".count) + "/ws" }
        return base + "/ws"
    }
}

/// A configuration a node cannot run with; `caucus serve` prints it and exits.
struct ServerConfigurationError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
