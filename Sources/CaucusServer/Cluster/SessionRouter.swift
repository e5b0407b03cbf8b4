import CaucusAuth
import CaucusCore
import CaucusStore

/// Where a session lives, as the node a request reached sees it.
enum SessionPlacement: Sendable {
    /// This node serves it.
    case here(SessionActor)
    /// Another node holds its lease: the client goes there (see `ClusterConfiguration`).
    case elsewhere(NodeID)
}

/// Finds (or makes) the session a join, a resume or a control request is for. One node keeps
/// every session in memory (`LocalSessionRouter`); several nodes sharing a PostgreSQL store
/// own each session through a lease and send a request for another node's session there
/// (`LeasedSessionRouter`).
protocol SessionRouter: Sendable {
    /// The session a join of `name` goes to, made here if no live one has that name.
    func placeJoin(app: AppCredentials, name: String, at now: Instant) async throws -> SessionPlacement

    /// A live session by id (on several nodes, taken over if its lease expired); nil if it
    /// ended or never was.
    func place(_ id: StoredSessionID) async throws -> SessionPlacement?
}

/// One node: every live session is in this process's registry.
struct LocalSessionRouter: SessionRouter {
    let registry: SessionRegistry

    func placeJoin(app: AppCredentials, name: String, at now: Instant) async throws -> SessionPlacement {
        .here(try await registry.sessionForJoin(app: app, name: name, at: now))
    }

    func place(_ id: StoredSessionID) async throws -> SessionPlacement? {
        await registry.session(id).map(SessionPlacement.here)
    }
}
