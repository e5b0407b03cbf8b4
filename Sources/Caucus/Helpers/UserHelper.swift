import CaucusCore

/// Roles and users: the host makes and revokes managers, hands the host role over, renames
/// and removes users. Anyone may rename themselves.
public struct UserHelper: Sendable {
    private let engine: SessionEngine

    init(engine: SessionEngine) { self.engine = engine }

    public func makeManager(_ user: UserID) async throws(SessionError) {
        try await engine.perform(.about(user, .makeManager))
    }

    public func revokeManager(_ user: UserID) async throws(SessionError) {
        try await engine.perform(.about(user, .revokeManager))
    }

    /// Makes another user the host; this user becomes a participant.
    public func transferHost(to user: UserID) async throws(SessionError) {
        try await engine.perform(.about(user, .transferHost))
    }

    public func rename(_ user: UserID, to name: String) async throws(SessionError) {
        try await engine.perform(.rename(user, to: name))
    }

    /// Removes a user from the session; their connection is closed.
    public func remove(_ user: UserID) async throws(SessionError) {
        try await engine.perform(.about(user, .remove))
    }
}
