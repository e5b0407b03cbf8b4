import CaucusAuth
import CaucusCore
import CaucusStore

extension SessionServer {
    /// How long the list waits for the shared store: an operator's read, answered (or refused)
    /// in seconds rather than after a lease, as it once was on a node cut off from the store.
    static let listingPatience = Duration.seconds(2)

    /// The app's live sessions. On several nodes the shared store lists them all: the ones
    /// served here in full, the others with what the store knows and the node serving them.
    func liveSessions(of app: AppCredentials) async throws -> [SessionSummary] {
        var local: [StoredSessionID: SessionSummary] = [:]
        for session in await registry.sessions(of: app.key) { local[session.id] = await session.summary() }
        guard let cluster = configuration.cluster, let shared = store as? any ClusterStore else {
            return local.values.sorted { $0.id < $1.id }
        }
        if let storeReachability, await storeReachability.isKnownUnreachable {
            let reason = await storeReachability.lastFailure ?? "no answer"
            throw CaucusError(.internalError, "This node cannot reach the shared store (\(reason)): list the sessions through another node.")
        }
        let patience = min(Self.listingPatience, storeReachability?.horizon ?? Self.listingPatience)
        let stored: [ListedSession]
        do {
            stored = try await StoreDeadline.bounded(by: .now + patience) { try await shared.liveSessionListing(app: app.key) }
        } catch {
            logger.warning("listing sessions failed: \(error)")
            throw CaucusError(.internalError, "The shared store did not answer within \(patience): list the sessions through another node, or try again.")
        }
        var listed: [SessionSummary] = []
        for session in stored {
            if var here = local.removeValue(forKey: session.id) {
                here.node = cluster.nodeURL
                listed.append(here)
            } else {
                listed.append(
                    SessionSummary(
                        id: session.id, name: session.name, createdAt: session.createdAt, users: nil, status: nil, seq: session.lastSeq,
                        node: session.lease.holder?.rawValue))
            }
        }
        // Opened here but not yet written (its first join is under way).
        return (listed + local.values).sorted { $0.id < $1.id }
    }
}
