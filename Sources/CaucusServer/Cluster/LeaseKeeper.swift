import CaucusCore
import CaucusStore
import Logging
import ServiceLifecycle

/// Several nodes: keeps this node's lease and takes over the sessions of nodes that stopped
/// keeping theirs. Every third of the lease duration it renews the node's lease — one
/// transaction whatever the number of sessions, which also says which sessions the node
/// still owns — and looks for live sessions whose owner's lease expired.
///
/// A session this node serves that the renewal no longer finds owned here was taken by
/// another node (this one was frozen or cut off meanwhile) and leaves it (4007); one owned
/// here but not served (it broke, or was given up before a late renewal came through) is
/// rebuilt here. When the renewals go unanswered (the database is unreachable, or a link to
/// it went silent), every session leaves the node as its lease is about to run out by this
/// node's clock (`HeldNodeLease`). That watch waits for nothing: it runs beside the renewals,
/// so a renewal the store never answers cannot hold it up, and the node's clients are closed
/// with 4007 before another node may take over.
struct LeaseKeeper: Service {
    let router: LeasedSessionRouter
    let registry: SessionRegistry
    let store: any ClusterStore
    let cluster: ClusterConfiguration
    let held: HeldNodeLease
    let reachability: StoreReachability
    let clock: ServerClock
    let metrics: ServerMetrics
    let logger: Logger

    /// Starts this node's run in the store (`ClusterStore.startNodeLease`): before it serves
    /// anything, so that every session it opens or takes over names this run.
    func start() async throws {
        let now = clock()
        let lease = try await store.startNodeLease(for: cluster.node, until: now.adding(cluster.leaseDuration))
        await held.started(lease)
        logger.info("node \(cluster.node) runs at \(lease.epoch)")
    }

    /// Ends this node's lease now (a stopping node whose sessions are saved) rather than when
    /// it would have expired, so that the clients told to reconnect find another node able to
    /// take their sessions over at once.
    func release() async {
        guard let incarnation = await held.incarnation else { return }
        await held.stopServing()
        try? await store.releaseNodeLease(incarnation, at: clock())
    }

    func run() async throws {
        // A stopping node takes nothing over; its lease is given up once its sessions are
        // saved (`SessionServer.closeAllConnections`).
        await cancelWhenGracefulShutdown {
            // The renewals run on their own: taking over or rebuilding many sessions (a node
            // that stopped had thousands) must not hold up the renewal that keeps this node's.
            // Only the latest renewal's answer is worth comparing.
            let (renewed, renewing) = AsyncStream.makeStream(of: [StoredSessionID: LeaseEpoch]?.self, bufferingPolicy: .bufferingNewest(1))
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await keepRenewing(reporting: renewing) }
                group.addTask { await maintain(after: renewed) }
                group.addTask { await watchDeadline() }
            }
        }
    }

    /// Renews this node's lease every third of it, and reports each renewal's answer.
    private func keepRenewing(reporting renewing: AsyncStream<[StoredSessionID: LeaseEpoch]?>.Continuation) async {
        defer { renewing.finish() }
        while !Task.isCancelled {
            try? await clock.sleep(for: cluster.leaseDuration / 3)
            guard !Task.isCancelled else { return }
            renewing.yield(await renew())
        }
    }

    /// After each renewal: the sessions served and owned compared, then a sweep for sessions
    /// to take over.
    private func maintain(after renewed: AsyncStream<[StoredSessionID: LeaseEpoch]?>) async {
        for await owned in renewed {
            if let owned { await reconcile(owned) }
            // A node whose lease lapsed (or that a later run of it replaced) takes nothing over.
            guard await held.serving(at: clock()) != nil else { continue }
            await takeOverExpired()
        }
    }

    /// Gives up every session while the node's lease is about to run out unrenewed, often
    /// enough that they are given up well within the margin (`HeldNodeLease.margin`).
    private func watchDeadline() async {
        while !Task.isCancelled {
            try? await clock.sleep(for: cluster.leaseDuration / 20)
            guard !Task.isCancelled else { return }
            guard await held.isDue(at: clock()) else { continue }
            let sessions = await registry.all().filter { $0.leaseEpoch != nil }
            guard !sessions.isEmpty else { continue }
            let reason = await reachability.lastFailure ?? "no answer from the store"
            logger.error("\(sessions.count) sessions leave this node: its lease runs out unrenewed (\(reason))")
            metrics.leasesLost.increment(by: Int64(sessions.count))
            for session in sessions { await session.leaseLost() }
        }
    }

    /// Renews this node's lease; returns the sessions it owns, nil if the store did not
    /// answer or refused.
    private func renew() async -> [StoredSessionID: LeaseEpoch]? {
        guard let incarnation = await held.incarnation, let giveUp = await held.giveUpPoint else { return nil }
        let started = ContinuousClock.now
        let now = clock()
        let until = now.adding(cluster.leaseDuration)
        // Before the give-up point, an answer after it would be of no use; after it (a late
        // renewal, which nobody may have overtaken), a renewal period.
        let bound = max(Duration.milliseconds(giveUp.milliseconds - now.milliseconds), cluster.leaseDuration / 3)
        do {
            let owned = try await StoreDeadline.bounded(by: started + bound) {
                try await store.renewNodeLease(incarnation, until: until)
            }
            await held.renewed(until: until)
            await reachability.answered(callStartedAt: started)
            metrics.nodeLeaseRenewals.increment()
            return owned
        } catch let error as StoreError where error.code == .fenced {
            // Another process of this node started: it owns the node's sessions now.
            await reachability.answered(callStartedAt: started)
            logger.error("this node's lease was taken by a later run of \(cluster.node): \(error)")
            await held.stopServing()
            let sessions = await registry.all().filter { $0.leaseEpoch != nil }
            metrics.leasesLost.increment(by: Int64(sessions.count))
            for session in sessions { await session.leaseLost() }
            return nil
        } catch {
            // Unanswered: the lease stands until it runs out (`watchDeadline`).
            logger.warning("could not renew this node's lease: \(error)")
            await reachability.failed("\(error)")
            return nil
        }
    }

    /// Compares the sessions this node serves with those the store says it owns (`owned`,
    /// read by the renewal): a session served here at an epoch the store no longer has was
    /// taken by another node and leaves; a session owned but not served is rebuilt here.
    private func reconcile(_ owned: [StoredSessionID: LeaseEpoch]) async {
        let served = await registry.all().filter { $0.leaseEpoch != nil }
        for session in served where owned[session.id] != session.leaseEpoch {
            await checkOwned(session)
        }
        let servedIDs = Set(served.map(\.id))
        for id in owned.keys.sorted() where !servedIDs.contains(id) {
            guard !Task.isCancelled, await held.serving(at: clock()) != nil else { return }
            guard await registry.session(id) == nil else { continue }
            do {
                _ = try await router.place(id)
            } catch {
                logger.warning("could not rebuild session \(id), which this node owns: \(error)")
            }
        }
    }

    /// A session the renewal did not find owned here at its epoch: one read to tell one
    /// opened (or taken over) since the renewal read, or not written yet, from one lost.
    private func checkOwned(_ session: SessionActor) async {
        let started = ContinuousClock.now
        do {
            let state = try await store.lease(of: session.id)
            await reachability.answered(callStartedAt: started)
            if state.owner == (await held.incarnation), state.epoch == session.leaseEpoch { return }
            logger.warning(
                "session \(session.id) is leased to \(state.owner?.description ?? "nobody") at \(state.epoch), no longer to this node")
            metrics.leasesLost.increment()
            await session.leaseLost()
        } catch let error as StoreError where error.code == .unknownSession {
            // Not opened yet: its first write takes the lease.
            await reachability.answered(callStartedAt: started)
        } catch {
            logger.warning("could not read the lease of session \(session.id): \(error)")
            await reachability.failed("\(error)")
        }
    }

    /// Takes over live sessions whose lease expired (their node died or was cut off) or whose
    /// holder is gone (its process died: `NodeLock`). The question is also how the node
    /// learns that the store answers again after an outage.
    private func takeOverExpired() async {
        let started = ContinuousClock.now
        let expired: [StoredSessionID]
        do {
            let now = clock()
            expired = try await store.sessionsWithExpiredLeases(at: now) + store.sessionsOfGoneNodes(otherThan: cluster.node, at: now)
            await reachability.answered(callStartedAt: started)
        } catch {
            logger.warning("could not look for sessions to take over: \(error)")
            await reachability.failed("\(error)")
            return
        }
        for id in expired {
            // The node's own lease may lapse during a long sweep: then it takes no more.
            guard !Task.isCancelled, await held.serving(at: clock()) != nil else { return }
            guard await registry.session(id) == nil else { continue }
            do {
                _ = try await router.place(id)
            } catch {
                logger.warning("could not take session \(id) over: \(error)")
            }
        }
    }
}
