import CaucusAuth
import CaucusCore
import CaucusStore

/// Several nodes on one PostgreSQL store: each live session is served by the node holding its
/// lease. A session is leased to the node that opens it from its first write; a request for a
/// session another node holds live is sent there; a session whose lease expired (its node
/// died or was cut off) is taken over by the node a request reaches first, or by the next
/// sweep of `LeaseKeeper`: the lease at the next epoch (which fences every later write of the
/// old holder), then a rebuild from the latest snapshot and the events after it.
actor LeasedSessionRouter: SessionRouter {
    let registry: SessionRegistry
    let store: any ClusterStore
    let cluster: ClusterConfiguration
    let apps: [String: AppCredentials]
    /// Events a rebuilt session keeps to replay to resuming clients (`replayWindow`).
    let replayDepth: Int
    let metrics: ServerMetrics
    /// Takeovers under way, so that many resumes arriving at once rebuild a session once.
    private var takingOver: [StoredSessionID: Task<SessionPlacement?, any Error>] = [:]

    init(
        registry: SessionRegistry, store: any ClusterStore, cluster: ClusterConfiguration, apps: [String: AppCredentials], replayDepth: Int,
        metrics: ServerMetrics
    ) {
        self.metrics = metrics
        self.registry = registry
        self.store = store
        self.cluster = cluster
        self.apps = apps
        self.replayDepth = replayDepth
    }

    func placeJoin(app: AppCredentials, name: String, at now: Instant) async throws -> SessionPlacement {
        if let local = await registry.session(app: app.key, named: name) { return .here(local) }
        if let id = try await store.liveSessionID(app: app.key, nameKey: SessionName.key(name)),
            let placement = try await place(id, at: now)
        {
            return placement
        }
        let lease = OpeningLease(holder: cluster.node, until: now.adding(cluster.leaseDuration))
        return .here(try await registry.sessionForJoin(app: app, name: name, at: now, lease: lease))
    }

    func place(_ id: StoredSessionID, at now: Instant) async throws -> SessionPlacement? {
        if let local = await registry.session(id) { return .here(local) }
        // No suspension from here until the task is recorded: requests for one session arriving
        // together share one lookup, and at most one takeover.
        if let pending = takingOver[id] { return try await pending.value }
        let task = Task { try await self.locate(id, at: now) }
        takingOver[id] = task
        defer { takingOver[id] = nil }
        return try await task.value
    }

    /// Where a session not in this node's registry is: at the live holder of its lease, or
    /// here once taken over.
    private func locate(_ id: StoredSessionID, at now: Instant) async throws -> SessionPlacement? {
        // Taken over by a lookup that finished while this one was being started.
        if let local = await registry.session(id) { return .here(local) }
        let lease: SessionLease
        do {
            lease = try await store.lease(of: id)
        } catch let error as StoreError where error.code == .unknownSession {
            return nil
        }
        if lease.isLive(at: now), let holder = lease.holder, holder != cluster.node { return .elsewhere(holder) }
        return try await takeOver(id, at: now)
    }

    /// Takes the lease of a session whose holder let it expire (or is this node, restarted),
    /// then rebuilds it here. The lease comes first: from then on the old holder can write
    /// nothing, so the log read next is the whole of it.
    private func takeOver(_ id: StoredSessionID, at now: Instant) async throws -> SessionPlacement? {
        let started = ContinuousClock.now
        let epoch: LeaseEpoch
        do {
            epoch = try await store.acquireLease(of: id, for: cluster.node, until: now.adding(cluster.leaseDuration), now: now)
        } catch let error as StoreError {
            switch error.code {
            case .leaseHeld:
                // Another node was quicker.
                let lease = try await store.lease(of: id)
                guard let holder = lease.holder, holder != cluster.node else { throw error }
                return .elsewhere(holder)
            case .sessionEnded, .unknownSession: return nil
            default: throw error
            }
        }
        guard let stored = try await store.liveSession(id, replayDepth: replayDepth) else { return nil }
        let limits = apps[stored.app]?.limits ?? .standard
        let session = await registry.takeOver(stored, epoch: epoch, limits: limits)
        metrics.takeovers.increment()
        metrics.takeoverDuration.recordInterval(ContinuousClock.now - started)
        return .here(session)
    }
}

extension Instant {
    func adding(_ duration: Duration) -> Instant {
        let (seconds, attoseconds) = duration.components
        return Instant(milliseconds: milliseconds + seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}
