import CaucusCore
import CaucusStore
import Logging
import ServiceLifecycle

/// Several nodes: keeps this node's leases and takes over the sessions of nodes that stopped
/// keeping theirs. Every third of the lease duration it renews the lease of each session it
/// serves, and looks for live sessions whose lease expired.
///
/// A session whose lease this node cannot renew leaves it: refused (`fenced`: another node
/// has it) at once; unanswered (the database is unreachable) once the lease it last renewed
/// has expired by this node's clock, since another node may take it from then on.
struct LeaseKeeper: Service {
    let router: LeasedSessionRouter
    let registry: SessionRegistry
    let store: any ClusterStore
    let cluster: ClusterConfiguration
    let clock: @Sendable () -> Instant
    let metrics: ServerMetrics
    let logger: Logger

    func run() async throws {
        // A stopping node takes nothing over; the leases of its sessions are given up once
        // they are saved (`SessionServer.closeAllConnections`).
        await cancelWhenGracefulShutdown {
            var renewedUntil: [StoredSessionID: Instant] = [:]
            while !Task.isCancelled {
                try? await Task.sleep(for: cluster.leaseDuration / 3)
                guard !Task.isCancelled else { return }
                renewedUntil = await renewAll(renewedUntil)
                await takeOverExpired()
            }
        }
    }

    /// Renews every lease this node holds; returns until when each is now held.
    private func renewAll(_ previous: [StoredSessionID: Instant]) async -> [StoredSessionID: Instant] {
        var held: [StoredSessionID: Instant] = [:]
        for session in await registry.all() {
            guard let epoch = session.leaseEpoch else { continue }
            let now = clock()
            let until = now.adding(cluster.leaseDuration)
            do {
                try await store.renewLease(of: session.id, for: cluster.node, epoch: epoch, until: until, now: now)
                held[session.id] = until
            } catch let error as StoreError where error.code == .unknownSession {
                // Not opened yet: its first write takes the lease.
                continue
            } catch let error as StoreError where error.code == .fenced || error.code == .sessionEnded {
                if error.code == .fenced {
                    logger.warning("session \(session.id) is no longer leased to this node: \(error)")
                    metrics.leasesLost.increment()
                }
                await session.leaseLost()
            } catch {
                // Unanswered: the lease stands until it expires, and then it may be another's.
                // A session this keeper never renewed was leased (opened or taken over) less
                // than a third of a lease ago, for a whole lease: two thirds of it are left.
                let expiry = previous[session.id] ?? now.adding(cluster.leaseDuration * 2 / 3)
                if clock() >= expiry {
                    logger.error("session \(session.id) leaves this node: its lease expired unrenewed (\(error))")
                    metrics.leasesLost.increment()
                    await session.leaseLost()
                } else {
                    held[session.id] = expiry
                }
            }
        }
        return held
    }

    /// Takes over live sessions whose lease expired: their node died or was cut off.
    private func takeOverExpired() async {
        do {
            for id in try await store.sessionsWithExpiredLeases(at: clock()) {
                guard await registry.session(id) == nil else { continue }
                _ = try await router.place(id)
            }
        } catch {
            logger.warning("could not look for sessions to take over: \(error)")
        }
    }
}
