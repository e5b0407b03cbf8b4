import CaucusStore
import Logging
import ServiceLifecycle

/// Several nodes: holds this node's liveness lock in the shared store while the node runs
/// (`ClusterStore.holdNodeLock`), so that other nodes see at once when its process dies and
/// take its sessions over without waiting for their leases to expire. A lost connection, or a
/// lock still held by this node's previous run (not yet seen to be gone), is tried again a
/// second later. It is the last of the node's services to stop, after its leases were given up.
struct NodeLock: Service {
    let store: any ClusterStore
    let node: NodeID
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var lastFailure: String?
            while !Task.isCancelled {
                do {
                    try await store.holdNodeLock(for: node)
                    lastFailure = nil
                } catch {
                    let failure = "\(error)"
                    // Said once per reason, not once a second.
                    if failure != lastFailure, !Task.isCancelled { logger.warning("this node's liveness lock is not held: \(failure)") }
                    lastFailure = failure
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }
}
