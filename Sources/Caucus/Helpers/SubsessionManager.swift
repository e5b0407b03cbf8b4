import CaucusCore

/// The subsession-manager powers the host and managers hold: start and stop, broadcast, and
/// moving users. The session hands one out while this user manages
/// (`CaucusSession.subsessionManager`, or the manager-handle event). Two managers are equal
/// when they act for the same session object.
public struct SubsessionManager: Sendable, Equatable {
    let engine: SessionEngine

    init(engine: SessionEngine) { self.engine = engine }

    // MARK: - Start and stop

    /// Opens the committed subsessions.
    /// - Parameters:
    ///   - durationSeconds: a timer after which the subsessions stop by themselves (warnings
    ///     come before its end, as the session's settings say); nil for none.
    ///   - autoAssign: spread the unassigned participants of the main session over the
    ///     subsessions, balanced and at random.
    ///   - autoMove: move assigned users in (true) or invite them (false); nil follows the
    ///     session's setting.
    /// - Throws: a refusal whose `failureStatus` is `startFailed`.
    public func start(durationSeconds: Int? = nil, autoAssign: Bool = false, autoMove: Bool? = nil) async throws(SessionError) {
        try await start(StartOptions(durationSeconds: durationSeconds, autoAssign: autoAssign, autoMove: autoMove))
    }

    public func start(_ options: StartOptions) async throws(SessionError) {
        try await engine.perform(.start(options))
    }

    /// Stops the subsessions: everyone returns to the main session after `countdownSeconds`
    /// (nil: the session's default countdown; 0: at once).
    /// - Throws: a refusal whose `failureStatus` is `stopFailed`.
    public func stop(countdownSeconds: Int? = nil) async throws(SessionError) {
        try await engine.perform(.stop(countdownSeconds: countdownSeconds))
    }

    /// Asks the server whether the subsessions are open (started or stopping). The snapshot's
    /// `isStarted` answers the same without a round trip.
    public func isStarted() async throws(SessionError) -> Bool {
        guard case .started(let started) = try await engine.perform(WireRequest(.isStarted)) else {
            throw .invalidResponse("isStarted was not answered with a flag.")
        }
        return started
    }

    /// Sends a message from the main session to everyone, in every subsession.
    public func broadcast(_ message: String) async throws(SessionError) {
        try await engine.perform(.text(.broadcast, message))
    }

    /// Lengthens the running timer.
    public func extendTimer(bySeconds seconds: Int) async throws(SessionError) {
        try await engine.perform(.extendTimer(seconds: seconds))
    }

    /// Renames a committed subsession; who is in it, assigned or invited stays the same.
    public func renameSubsession(_ subsession: RoomID, to newName: String) async throws(SessionError) {
        try await engine.perform(.renameRoom(subsession, to: newName))
    }

    // MARK: - Moving users

    /// Puts users in a subsession: moves them while subsessions run, or changes the plan
    /// (who goes where on start) while they are committed or stopped.
    public func assign(_ users: [UserID], to subsession: RoomID) async throws(SessionError) {
        try await engine.perform(.assign(users, to: subsession))
    }

    /// Moves one user to a subsession.
    public func move(_ user: UserID, to subsession: RoomID) async throws(SessionError) {
        try await assign([user], to: subsession)
    }

    /// Sends one user back to the main session.
    public func returnToMain(_ user: UserID) async throws(SessionError) {
        try await engine.perform(.about(user, .returnUser))
    }

    /// Sends everyone back to the main session; the subsessions stay open.
    public func returnEveryone() async throws(SessionError) {
        try await engine.perform(WireRequest(.returnEveryone))
    }

    /// Spreads participants over the subsessions, balanced and at random: those in the main
    /// session while they run, the unassigned ones in the plan otherwise.
    public func autoAssign() async throws(SessionError) {
        try await engine.perform(WireRequest(.autoAssign))
    }

    // MARK: - Broadcast voice and listen-in

    /// Speaks to every room at once: every user, wherever it is, hears this user's audio (as
    /// long as it publishes audio) until `stopVoiceBroadcast`. One broadcaster at a time.
    public func startVoiceBroadcast() async throws(SessionError) {
        try await engine.perform(WireRequest(.startVoiceBroadcast))
    }

    /// Ends the voice broadcast: one's own, or (as the host) anyone's.
    public func stopVoiceBroadcast() async throws(SessionError) {
        try await engine.perform(WireRequest(.stopVoiceBroadcast))
    }

    /// Hears and sees `subsession` instead of one's own location, without joining it; its
    /// users are told. One's own microphone never reaches it.
    public func listenIn(to subsession: RoomID) async throws(SessionError) {
        try await engine.perform(.room(subsession, .listenIn))
    }

    public func stopListening() async throws(SessionError) {
        try await engine.perform(WireRequest(.stopListening))
    }

    public static func == (lhs: SubsessionManager, rhs: SubsessionManager) -> Bool { lhs.engine === rhs.engine }

    /// Help requests waiting for an answer.
    public var helpRequests: [HelpRequestHandler] { engine.published.snapshot(engine: engine)?.helpRequests ?? [] }
}
