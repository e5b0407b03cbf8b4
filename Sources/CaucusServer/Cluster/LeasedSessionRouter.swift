import CaucusAuth
import CaucusCore
import CaucusStore
import Logging

/// Several nodes on one PostgreSQL store: each live session is served by the node holding its
/// lease. A session is leased to the node that opens it from its first write; a request for a
/// session another node holds live is sent there; a session whose lease expired (its node's
/// lease ran out: it died or was cut off; or the node started again) is taken over by the node a request reaches first, or by the next
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
    /// This node's run, and until when it serves the sessions it holds (with `LeaseKeeper`).
    let held: HeldNodeLease
    /// Whether the store answers this node: while it does not, a request that needs it fails
    /// at once, and a wait for it ends when the node would give its sessions up.
    let reachability: StoreReachability
    /// Read at each lease decision, never earlier: a request may have waited (for a takeover
    /// under way, under load) long enough that the time it arrived is no longer "now".
    let clock: ServerClock
    let logger: Logger
    /// Takeovers under way, so that many resumes arriving at once rebuild a session once.
    private var takingOver: [StoredSessionID: Task<SessionPlacement?, any Error>] = [:]

    init(
        registry: SessionRegistry, store: any ClusterStore, cluster: ClusterConfiguration, apps: [String: AppCredentials], replayDepth: Int,
        held: HeldNodeLease, reachability: StoreReachability, metrics: ServerMetrics, clock: ServerClock, logger: Logger
    ) {
        self.held = held
        self.reachability = reachability
        self.logger = logger
        self.metrics = metrics
        self.clock = clock
        self.registry = registry
        self.store = store
        self.cluster = cluster
        self.apps = apps
        self.replayDepth = replayDepth
    }

    func placeJoin(app: AppCredentials, name: String, at now: Instant) async throws -> SessionPlacement {
        try await withStore {
            if let local = await registry.session(app: app.key, named: name), try await stillHeld(local) { return .here(local) }
            if let id = try await store.liveSessionID(app: app.key, nameKey: SessionName.key(name)),
                let placement = try await placeReachable(id)
            {
                return placement
            }
            let lease = OpeningLease(owner: try await serving())
            return .here(try await registry.sessionForJoin(app: app, name: name, at: now, lease: lease))
        }
    }

    func place(_ id: StoredSessionID) async throws -> SessionPlacement? {
        try await withStore { try await placeReachable(id) }
    }

    /// Runs `body`, whose store calls wait no longer than the part of a lease a node serves
    /// without renewing it (`StoreReachability.horizon`); fails at once while the store is
    /// known to be unreachable.
    private func withStore<T>(_ body: () async throws -> T) async throws -> T {
        guard !(await reachability.isKnownUnreachable) else {
            let reason = await reachability.lastFailure ?? "no answer"
            throw StoreError(.database, "This node cannot reach the store (\(reason)); try another node.")
        }
        let started = ContinuousClock.now
        do {
            let result = try await StoreDeadline.bounded(by: started + reachability.horizon, body)
            await reachability.answered(callStartedAt: started)
            return result
        } catch let error as StoreError where error.code == .database || error.code == .closed {
            await reachability.failed("\(error)")
            throw error
        } catch let error as StoreError {
            // A refusal is an answer.
            await reachability.answered(callStartedAt: started)
            throw error
        }
    }

    private func placeReachable(_ id: StoredSessionID) async throws -> SessionPlacement? {
        if let local = await registry.session(id), try await stillHeld(local) { return .here(local) }
        // No suspension from here until the task is recorded: requests for one session arriving
        // together share one lookup, and at most one takeover.
        if let pending = takingOver[id] { return try await pending.value }
        let task = Task { try await self.locate(id) }
        takingOver[id] = task
        defer { takingOver[id] = nil }
        return try await task.value
    }

    /// Whether this node still holds the lease of a session it has in memory, as the store
    /// says now. A node that was frozen or cut off from the store may not have heard yet that
    /// another node took a lease over (its keeper finds out at its next renewal): it must not
    /// answer for that session from memory, where a resume is checked against a log that
    /// has moved on elsewhere. A session it lost leaves it here (its clients are closed with
    /// 4007), and the request is placed as for any session not in memory.
    private func stillHeld(_ local: SessionActor) async throws -> Bool {
        guard let epoch = local.leaseEpoch else { return true }
        let lease: SessionLeaseState
        do {
            lease = try await store.lease(of: local.id)
        } catch let error as StoreError where error.code == .unknownSession {
            // Being opened here: its row, and its lease, come with its first write.
            return true
        }
        if lease.owner == (await held.incarnation) && lease.epoch == epoch { return true }
        logger.warning("session \(local.id) is leased to \(lease.owner?.description ?? "nobody") at \(lease.epoch), no longer to this node at \(epoch)")
        metrics.leasesLost.increment()
        await local.leaseLost()
        return false
    }

    /// Where a session not in this node's registry is: at the live holder of its lease, or
    /// here once taken over.
    private func locate(_ id: StoredSessionID) async throws -> SessionPlacement? {
        // Taken over by a lookup that finished while this one was being started.
        if let local = await registry.session(id) { return .here(local) }
        let lease: SessionLeaseState
        do {
            lease = try await store.lease(of: id)
        } catch let error as StoreError where error.code == .unknownSession {
            return nil
        }
        if lease.isLive(at: clock()), let holder = lease.holder, holder != cluster.node {
            // A holder whose process died is seen at once (`NodeLock`): its session is taken
            // over now rather than when its lease expires.
            guard try await store.isNodeGone(holder) else { return .elsewhere(holder) }
            return try await takeOver(id, from: holder)
        }
        return try await takeOver(id)
    }

    /// This node's run, while its lease lets it serve sessions; otherwise it takes none.
    private func serving() async throws -> NodeIncarnation {
        guard let incarnation = await held.serving(at: clock()) else {
            throw StoreError(.database, "This node's lease runs out unrenewed; try another node.")
        }
        return incarnation
    }

    /// Takes the lease of a session whose owner's lease ran out (or is this node, restarted),
    /// then rebuilds it here. The lease comes first: from then on the old holder can write
    /// nothing, so the log read next is the whole of it.
    /// `gone`: the live lease's holder, whose process died.
    private func takeOver(_ id: StoredSessionID, from gone: NodeID? = nil) async throws -> SessionPlacement? {
        let started = ContinuousClock.now
        let incarnation = try await serving()
        let epoch: LeaseEpoch
        do {
            let now = clock()
            if let gone {
                epoch = try await store.acquireLease(of: id, for: incarnation, now: now, replacingGone: gone)
            } else {
                epoch = try await store.acquireLease(of: id, for: incarnation, now: now)
            }
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
        let session = await registry.rebuild(stored, epoch: epoch, limits: limits)
        // The node's lease keeps the session from now on; only a node whose own lease ran
        // out during a long rebuild may have lost it meanwhile.
        let lease = try await store.lease(of: id)
        guard lease.owner == incarnation, lease.epoch == epoch else {
            await session.leaseLost()
            guard lease.isLive(at: clock()), let holder = lease.holder, holder != cluster.node else {
                throw StoreError.fenced(id, claimed: epoch, current: lease.lease)
            }
            return .elsewhere(holder)
        }
        metrics.takeovers.increment()
        logger.notice(
            "took over session \(id) at \(epoch): \(stored.events.count) events after the snapshot at \(stored.snapshot?.seq ?? 0), in \(ContinuousClock.now - started)")
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
