import CaucusCore
import CaucusStore
import Logging
import ServiceLifecycle

/// Several nodes: keeps this node's leases and takes over the sessions of nodes that stopped
/// keeping theirs. Every third of the lease duration it renews the lease of each session it
/// serves, and looks for live sessions whose lease expired.
///
/// A session whose lease this node cannot renew leaves it: refused (`fenced`: another node
/// has it) at once; unanswered (the database is unreachable, or a link to it went silent)
/// when its lease is about to run out by this node's clock (`HeldLeases`). That watch waits
/// for nothing: it runs beside the renewals, so a renewal the store never answers cannot hold
/// it up, and the node's clients are closed with 4007 before another node may take over.
struct LeaseKeeper: Service {
    let router: LeasedSessionRouter
    let registry: SessionRegistry
    let store: any ClusterStore
    let cluster: ClusterConfiguration
    let held: HeldLeases
    let reachability: StoreReachability
    let clock: @Sendable () -> Instant
    let metrics: ServerMetrics
    let logger: Logger

    /// How many renewals are under way at once: one renewal the store is slow to answer does
    /// not hold up the others.
    static let renewalWidth = 8

    func run() async throws {
        // A stopping node takes nothing over; the leases of its sessions are given up once
        // they are saved (`SessionServer.closeAllConnections`).
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await keepRenewing() }
                group.addTask { await watchDeadlines() }
            }
        }
    }

    private func keepRenewing() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: cluster.leaseDuration / 3)
            guard !Task.isCancelled else { return }
            await renewAll()
            await takeOverExpired()
        }
    }

    /// Gives up each session whose lease is about to run out unrenewed, often enough that it
    /// is given up well within the margin (`HeldLeases.margin`).
    private func watchDeadlines() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: cluster.leaseDuration / 20)
            guard !Task.isCancelled else { return }
            for id in await held.due(at: clock()) {
                guard let session = await registry.session(id) else { continue }
                let reason = await reachability.lastFailure ?? "no answer from the store"
                logger.error("session \(id) leaves this node: its lease runs out unrenewed (\(reason))")
                metrics.leasesLost.increment()
                await session.leaseLost()
            }
        }
    }

    /// Renews every lease this node holds, a few at a time.
    private func renewAll() async {
        let sessions = await registry.all().filter { $0.leaseEpoch != nil }
        await withTaskGroup(of: Void.self) { group in
            for (index, session) in sessions.enumerated() {
                if index >= Self.renewalWidth { await group.next() }
                group.addTask { await renew(session) }
            }
        }
    }

    private func renew(_ session: SessionActor) async {
        guard let epoch = session.leaseEpoch, let giveUp = await held.giveUpPoint(of: session.id) else { return }
        let started = ContinuousClock.now
        let now = clock()
        let until = now.adding(cluster.leaseDuration)
        do {
            // An answer after the session was given up would be of no use.
            try await StoreDeadline.bounded(by: started + .milliseconds(giveUp.milliseconds - now.milliseconds)) {
                try await store.renewLease(of: session.id, for: cluster.node, epoch: epoch, until: until, now: now)
            }
            await held.held(session.id, until: until)
            await reachability.answered(callStartedAt: started)
        } catch let error as StoreError where error.code == .unknownSession {
            // Not opened yet: its first write takes the lease (until `HeldLeases.opening`).
            await reachability.answered(callStartedAt: started)
        } catch let error as StoreError where error.code == .fenced || error.code == .sessionEnded {
            await reachability.answered(callStartedAt: started)
            if error.code == .fenced {
                logger.warning("session \(session.id) is no longer leased to this node: \(error)")
                metrics.leasesLost.increment()
            }
            await held.forget(session.id)
            await session.leaseLost()
        } catch {
            // Unanswered: the lease stands until it runs out (`watchDeadlines`).
            logger.warning("could not renew the lease of session \(session.id): \(error)")
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
            guard await registry.session(id) == nil else { continue }
            do {
                _ = try await router.place(id)
            } catch {
                logger.warning("could not take session \(id) over: \(error)")
            }
        }
    }
}
