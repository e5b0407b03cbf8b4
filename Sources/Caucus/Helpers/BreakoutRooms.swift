import CaucusCore

/// The create-and-invite flow: create rooms from a definition (optionally distributing the
/// main session's participants), invite users, accept or reject invitations, control the
/// parent (main) room while breakouts run, and clear or destroy everything. The rooms are the
/// same subsessions the plan-and-commit flow makes.
public struct BreakoutRooms: Sendable {
    private let engine: SessionEngine

    init(engine: SessionEngine) { self.engine = engine }

    // MARK: - Creating

    /// Creates `count` rooms with `definition`, open at once (or waiting for the start of a
    /// committed plan they join). Returns the rooms created.
    @discardableResult
    public func create(_ definition: RoomDefinition = .standard, count: Int) async throws(SessionError) -> [SubsessionKit] {
        try await engine.createRooms(.createRooms(definition, count: count, forceJoin: nil))
    }

    /// Creates rooms and spreads the main session's participants over them, balanced and at
    /// random: moved in with `forceJoin`, invited otherwise. Returns the rooms created.
    @discardableResult
    public func createAndInvite(
        _ definition: RoomDefinition = .standard, count: Int, forceJoin: Bool = false
    ) async throws(SessionError) -> [SubsessionKit] {
        try await engine.createRooms(.createRooms(definition, count: count, forceJoin: forceJoin))
    }

    // MARK: - Inviting and answering

    /// Invites users to a room (from the parent room). With `forceJoin` they are moved
    /// without being asked.
    public func invite(_ users: [UserID], to room: RoomID, forceJoin: Bool = false) async throws(SessionError) {
        try await engine.perform(.invite(users, to: room, forceJoin: forceJoin))
    }

    /// Accepts this user's invitation: joins the room.
    public func accept(_ room: RoomID) async throws(SessionError) {
        try await engine.perform(.room(room, .acceptInvitation))
    }

    /// Declines this user's invitation; the managers are told.
    public func reject(_ room: RoomID) async throws(SessionError) {
        try await engine.perform(.room(room, .rejectInvitation))
    }

    /// Joins an open room directly.
    public func join(_ room: RoomID) async throws(SessionError) {
        try await engine.perform(.room(room, .joinRoom))
    }

    /// Leaves this user's room for the parent room.
    public func disconnect() async throws(SessionError) {
        try await engine.perform(WireRequest(.disconnect))
    }

    // MARK: - The parent room

    /// Pauses the parent room while breakouts run.
    public func pauseParent() async throws(SessionError) {
        try await engine.perform(WireRequest(.pauseParent))
    }

    public func resumeParent() async throws(SessionError) {
        try await engine.perform(WireRequest(.resumeParent))
    }

    /// Mutes the parent room's audio and/or video.
    public func muteParent(audio: Bool = true, video: Bool = true) async throws(SessionError) {
        try await engine.perform(.parentMedia(.muteParent, audio: audio, video: video))
    }

    public func unmuteParent(audio: Bool = true, video: Bool = true) async throws(SessionError) {
        try await engine.perform(.parentMedia(.unmuteParent, audio: audio, video: video))
    }

    // MARK: - Ending

    /// Returns everyone to the parent room; the rooms stay.
    public func clearAll() async throws(SessionError) {
        try await engine.perform(WireRequest(.clearAll))
    }

    /// Removes every room, returns everyone, and resumes and unmutes the parent room.
    public func destroyAll() async throws(SessionError) {
        try await engine.perform(WireRequest(.destroyAll))
    }
}
