import CaucusAuth
import CaucusCore
import CaucusStore

/// The live sessions of every app, by id and by name. A name (per app, case-insensitive)
/// refers to at most one live session; it is free again once that session ends.
actor SessionRegistry {
    private var sessions: [StoredSessionID: SessionActor] = [:]
    private var names = SessionDirectory<StoredSessionID>()
    private var nameOf: [StoredSessionID: (app: String, name: String)] = [:]
    /// Live sessions (and sessions being created) per app, for the app's `maxSessions`.
    private var liveByApp: [String: Int] = [:]
    /// Sessions being created, so that two first joins of one name make one session.
    private var creating: [String: Task<SessionActor, any Error>] = [:]
    private let environment: @Sendable (SessionRegistry) -> SessionEnvironment

    init(environment: @escaping @Sendable (SessionRegistry) -> SessionEnvironment) {
        self.environment = environment
    }

    func session(_ id: StoredSessionID) -> SessionActor? { sessions[id] }

    func session(app: String, named name: String) -> SessionActor? {
        names.session(app: app, named: name).flatMap { sessions[$0] }
    }

    func sessions(of app: String) -> [SessionActor] {
        sessions.values.filter { $0.app == app }.sorted { $0.id < $1.id }
    }

    var count: Int { sessions.count }

    func all() -> [SessionActor] { Array(sessions.values) }

    /// The live session a join of `name` goes to, created if there is none (on several
    /// nodes, leased to this one from its first write: `lease`).
    func sessionForJoin(app: AppCredentials, name: String, at now: Instant, lease: OpeningLease? = nil) async throws -> SessionActor {
        if let existing = session(app: app.key, named: name) { return existing }
        let key = app.key + "\u{0}" + SessionName.key(name)
        if let pending = creating[key] { return try await pending.value }
        guard liveByApp[app.key, default: 0] < app.maxSessions else {
            throw CaucusError(
                .tooManySessions,
                "This app has \(app.maxSessions) live sessions, as many as it may have: join one of them, or end one first.")
        }
        // Counted from now: joins of other names racing this creation see it.
        liveByApp[app.key, default: 0] += 1
        let environment = environment(self)
        let task = Task { () throws -> SessionActor in
            // Only an id: the row is written with the first join's events (none if refused).
            let id = try await environment.store.reserveSessionID()
            let opening = SessionOpening(app: app.key, name: name, createdAt: now, lease: lease)
            return SessionActor(id: id, app: app.key, limits: app.limits, opening: opening, environment: environment)
        }
        creating[key] = task
        defer { creating[key] = nil }
        let actor: SessionActor
        do {
            actor = try await task.value
        } catch {
            liveByApp[app.key, default: 1] -= 1
            throw error
        }
        register(actor, app: app.key, name: name, counted: true)
        return actor
    }

    private func register(_ actor: SessionActor, app: String, name: String, counted: Bool = false) {
        if !counted { liveByApp[app, default: 0] += 1 }
        sessions[actor.id] = actor
        names.register(actor.id, app: app, named: name)
        nameOf[actor.id] = (app, name)
    }

    /// Frees an ended (or broken) session's name.
    func closed(_ id: StoredSessionID) {
        guard let entry = nameOf.removeValue(forKey: id) else { return }
        liveByApp[entry.app, default: 1] -= 1
        sessions[id] = nil
        if names.session(app: entry.app, named: entry.name) == id { names.end(app: entry.app, named: entry.name) }
    }

    /// Drops a session no one managed to join (its first join was refused): it has no row in
    /// the store, only its name here.
    func discardIfUnstarted(_ actor: SessionActor) async {
        guard await actor.state.lifecycle == .awaitingFirstJoin else { return }
        closed(actor.id)
    }

    /// Rebuilds a session from its snapshot and log: after a restart, or (several nodes) once
    /// this node has taken its lease, at `epoch`. Its users lost their connections with the
    /// old process or node: their seats are held for the grace from now, to resume here.
    func rebuild(_ stored: StoredSession, epoch: LeaseEpoch?, limits: SessionLimits) async -> SessionActor {
        if let existing = sessions[stored.id] { return existing }
        let actor = SessionActor(
            id: stored.id, app: stored.app, limits: limits, opening: nil, leaseEpoch: epoch, environment: environment(self))
        await actor.restore(stored)
        // Another rebuild may have finished while this one restored: one actor per session
        // (this one has written nothing, and goes).
        if let existing = sessions[stored.id] { return existing }
        register(actor, app: stored.app, name: stored.name)
        await actor.holdSeatsAfterRestart()
        return actor
    }

    /// Rebuilds every live session from the store after a restart.
    func restore(from stored: [StoredSession], apps: [String: AppCredentials]) async {
        // A row is written with a session's first events, so every live session has some.
        for session in stored where session.lastSeq > 0 {
            _ = await rebuild(session, epoch: nil, limits: apps[session.app]?.limits ?? .standard)
        }
    }
}
