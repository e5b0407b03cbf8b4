import CaucusAuth
import CaucusCore
import CaucusStore

extension SessionServer {
    /// The app's live sessions. On several nodes the shared store lists them all: the ones
    /// served here in full, the others with what the store knows and the node serving them.
    func liveSessions(of app: AppCredentials) async throws -> [SessionSummary] {
        var local: [StoredSessionID: SessionSummary] = [:]
        for session in await registry.sessions(of: app.key) { local[session.id] = await session.summary() }
        guard let cluster = configuration.cluster, let shared = store as? any ClusterStore else {
            return local.values.sorted { $0.id < $1.id }
        }
        var listed: [SessionSummary] = []
        for session in try await shared.liveSessionListing(app: app.key) {
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
