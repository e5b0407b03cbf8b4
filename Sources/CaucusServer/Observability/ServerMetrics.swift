import CoreMetrics
import Metrics
import Prometheus

/// The server's metrics, recorded through swift-metrics and exposed at `/metrics` in
/// Prometheus text.
struct ServerMetrics: Sendable {
    /// swift-metrics has one backend per process; every server in the process shares it.
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // A routing update holds the media loop's forwarding: milliseconds matter there.
        factory.durationHistogramBuckets[MediaMetricNames.routingUpdateDuration] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000].map { .milliseconds($0) }
        MetricsSystem.bootstrap(factory)
        return registry
    }()

    let events: CoreMetrics.Counter
    let deliveries: CoreMetrics.Counter
    let slowClientsDropped: CoreMetrics.Counter
    /// WebSocket connections closed for not joining by the join deadline (4008), and refused
    /// because their address had as many not-joined connections as allowed (4009).
    let joinDeadlinesPassed: CoreMetrics.Counter
    let waitingConnectionsRefused: CoreMetrics.Counter
    /// Connections closed for not sending a whole request by the deadline, connections closed
    /// at once because the server held its ceiling of connections not joined, and how many
    /// such connections it holds (refreshed at each scrape).
    let requestDeadlinesPassed: CoreMetrics.Counter
    let connectionsOverCeiling: CoreMetrics.Counter
    let unjoinedConnections: CoreMetrics.Gauge
    let joins: CoreMetrics.Counter
    let sessions: CoreMetrics.Gauge
    let users: CoreMetrics.Gauge
    let requestLatency: CoreMetrics.Timer
    let fanOut: CoreMetrics.Timer
    /// Several nodes: sessions this node took over from another, and how long each took (the
    /// lease, reading the snapshot and the log, rebuilding), and sessions it lost.
    let takeovers: CoreMetrics.Counter
    let takeoverDuration: CoreMetrics.Timer
    let leasesLost: CoreMetrics.Counter
    /// Several nodes: renewals of this node's lease (one per renewal period, whatever the
    /// number of sessions).
    let nodeLeaseRenewals: CoreMetrics.Counter

    init() {
        _ = Self.registry
        events = CoreMetrics.Counter(label: "caucus_events_total")
        deliveries = CoreMetrics.Counter(label: "caucus_deliveries_total")
        slowClientsDropped = CoreMetrics.Counter(label: "caucus_slow_clients_dropped_total")
        joinDeadlinesPassed = CoreMetrics.Counter(label: "caucus_join_deadline_closed_total")
        waitingConnectionsRefused = CoreMetrics.Counter(label: "caucus_unjoined_refused_total")
        requestDeadlinesPassed = CoreMetrics.Counter(label: "caucus_request_deadline_closed_total")
        connectionsOverCeiling = CoreMetrics.Counter(label: "caucus_connections_over_ceiling_total")
        unjoinedConnections = CoreMetrics.Gauge(label: "caucus_unjoined_connections")
        joins = CoreMetrics.Counter(label: "caucus_joins_total")
        sessions = CoreMetrics.Gauge(label: "caucus_sessions")
        users = CoreMetrics.Gauge(label: "caucus_users")
        requestLatency = CoreMetrics.Timer(label: "caucus_request_duration_seconds", preferredDisplayUnit: .seconds)
        fanOut = CoreMetrics.Timer(label: "caucus_fanout_duration_seconds", preferredDisplayUnit: .seconds)
        takeovers = CoreMetrics.Counter(label: "caucus_takeovers_total")
        takeoverDuration = CoreMetrics.Timer(label: "caucus_takeover_duration_seconds", preferredDisplayUnit: .seconds)
        leasesLost = CoreMetrics.Counter(label: "caucus_leases_lost_total")
        nodeLeaseRenewals = CoreMetrics.Counter(label: "caucus_node_lease_renewals_total")
    }

    func prometheusText() -> String { Self.registry.emitToString() }
}

extension CoreMetrics.Timer {
    func recordInterval(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
