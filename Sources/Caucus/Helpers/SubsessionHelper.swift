import CaucusCore

/// The host's planning tools: prepare a pre-list of subsessions, commit it, withdraw it.
/// Everyone hears each status change with the full committed list. The session hands one out
/// while this user is the host or a manager (`CaucusSession.subsessionHelper`); only the host
/// may change the plan, and a manager may read the committed list.
public struct SubsessionHelper: Sendable {
    private let engine: SessionEngine

    init(engine: SessionEngine) { self.engine = engine }

    /// Adds subsessions, by name, to the pre-list.
    public func addToPreList(_ names: [String]) async throws(SessionError) {
        try await engine.perform(.preList(.addToPreList, names))
    }

    public func addToPreList(_ names: String...) async throws(SessionError) {
        try await addToPreList(names)
    }

    /// Removes subsessions, by name, from the pre-list.
    public func removeFromPreList(_ names: [String]) async throws(SessionError) {
        try await engine.perform(.preList(.removeFromPreList, names))
    }

    public func removeFromPreList(_ names: String...) async throws(SessionError) {
        try await removeFromPreList(names)
    }

    public func clearPreList() async throws(SessionError) {
        try await engine.perform(WireRequest(.clearPreList))
    }

    /// Puts users in a pre-list subsession ahead of the commit.
    public func preAssign(_ users: [UserID], to name: String) async throws(SessionError) {
        try await engine.perform(.preAssign(users, to: name))
    }

    /// Renames a pre-list subsession; its users stay in it.
    public func renamePlannedRoom(_ name: String, to newName: String) async throws(SessionError) {
        try await engine.perform(.renamePlannedRoom(name, to: newName))
    }

    /// Takes users out of the plan (the pre-list and the committed subsessions' assignments);
    /// nobody moves.
    public func unassign(_ users: [UserID]) async throws(SessionError) {
        try await engine.perform(.unassign(users))
    }

    /// The pre-list, as the server has it. (The snapshot's `preList` is the same, kept locally.)
    public func preList() async throws(SessionError) -> [PlannedRoom] {
        guard case .preList(let plan) = try await engine.perform(WireRequest(.getPreList)) else {
            throw .invalidResponse("getPreList was not answered with a pre-list.")
        }
        return plan
    }

    /// Replaces any committed list with the pre-list.
    /// - Throws: a refusal whose `failureStatus` is `commitFailed`.
    public func commit() async throws(SessionError) {
        try await engine.perform(WireRequest(.commit))
    }

    /// The committed list, as the server has it. (The snapshot's `subsessions` is the same,
    /// kept locally; unlike the seeds', it is right as soon as `commit()` returns.)
    public func committedList() async throws(SessionError) -> [SubsessionKit] {
        guard case .committed(let breakout) = try await engine.perform(WireRequest(.getCommittedList)) else {
            throw .invalidResponse("getCommittedList was not answered with the list.")
        }
        return await engine.kits(for: breakout)
    }

    /// Withdraws the committed list.
    /// - Throws: a refusal whose `failureStatus` is `withdrawFailed`.
    public func withdraw() async throws(SessionError) {
        try await engine.perform(WireRequest(.withdraw))
    }
}
