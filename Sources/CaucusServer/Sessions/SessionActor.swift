import CaucusCore
import CaucusJSON
import CaucusProtocol
import CaucusStore
import DequeModule
import NIOCore

/// One live session: it owns the state, decides commands one at a time, makes their events
/// durable (several commands' events in one store transaction when they arrive together),
/// and fans each event out to its audience as one encoded buffer shared by every recipient.
actor SessionActor {
    let id: StoredSessionID
    let app: String
    private(set) var state: SessionState
    private(set) var seq: Int
    private var durableSeq: Int

    /// Decided and applied, waiting for the store; delivered once durable.
    private var pending: [Outgoing] = []
    private var flushing = false
    private var waiters: [(seq: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    private var broken = false
    private var stopping = false

    /// Recent events for replay to resuming clients: only what a replay needs (an idle
    /// session's window is most of its memory per user).
    private var recent = Deque<Kept>()
    /// The seq of each present user's join: a resume never replays what came before it.
    private var joinedAt: [UserID: Int] = [:]
    /// Replies owed once a command's last event is delivered, by that event's seq.
    var pendingReplies: [Int: ReplyTarget] = [:]
    /// A new user's connection gets no event its join snapshot already includes.
    var deliveryFloor: [UserID: Int] = [:]
    var connections: [UserID: ClientConnection] = [:]
    /// Roster news held per connection for the roster window (see `RosterHold`).
    var rosterHold = RosterHold<ConnectionRef, ByteBuffer>()
    var tickTask: Task<Void, Never>?
    private var scheduledDeadline: Instant?
    let environment: SessionEnvironment
    let encoder = StreamingJSONEncoder.caucus

    /// Where a command's reply goes: sent right after its last event, so it comes before any
    /// close that event causes (a host ending the session still hears "done").
    struct ReplyTarget: Sendable {
        let connection: ClientConnection
        let requestID: Int
        /// A reply other than `done(seq:)`.
        var frame: ByteBuffer? = nil
    }

    /// A connection as a key, by identity.
    struct ConnectionRef: Hashable, Sendable {
        let connection: ClientConnection

        init(_ connection: ClientConnection) { self.connection = connection }

        static func == (lhs: Self, rhs: Self) -> Bool { lhs.connection === rhs.connection }
        func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(connection)) }
    }

    struct Outgoing: Sendable {
        let event: SequencedEvent
        let frame: ByteBuffer
        let recipients: Recipients
    }

    /// An event as the replay window keeps it.
    struct Kept: Sendable {
        let seq: Int
        let frame: ByteBuffer
        /// Who got it, when that was not everyone.
        let only: [UserID]?

        func wasSent(to user: UserID) -> Bool { only?.contains(user) ?? true }
    }

    enum Recipients: Sendable {
        case everyone([UserID])
        case some([UserID])

        var users: [UserID] {
            switch self {
            case .everyone(let users), .some(let users): users
            }
        }
    }

    init(id: StoredSessionID, app: String, limits: SessionLimits, environment: SessionEnvironment) {
        self.id = id
        self.app = app
        self.state = SessionState(limits: limits)
        self.seq = 0
        self.durableSeq = 0
        self.environment = environment
    }

    /// Rebuilds the session from its stored log after a restart (on a fresh actor).
    func restore(_ stored: StoredSession) {
        for event in stored.events {
            if case .userJoined(let user, _) = event.event { joinedAt[user.id] = event.seq }
            let departed = Self.departures(of: event.event, in: state)
            state.apply(event.event)
            remember(Outgoing(event: event, frame: Self.encode(.event(event), with: encoder), recipients: recipients(of: event.event, departed: departed)))
            seq = event.seq
        }
        durableSeq = seq
    }

    /// Users who were connected lost their connection with the old process: their seats are
    /// held for the grace from now.
    func holdSeatsAfterRestart() async {
        for user in state.users.values where user.presence.isConnected {
            _ = try? await perform(.connectionLost(user.id), by: .server)
        }
        scheduleTick()
    }

    // MARK: - Commands

    /// Decides, applies, persists and delivers a command's events; returns the last seq.
    /// With `reply`, the actor itself answers `done` right after the last event (when there is one).
    func perform(_ command: Command, by principal: Principal, reply: ReplyTarget? = nil) async throws(CaucusError) -> Int? {
        guard !broken else { throw CaucusError(.internalError, "This session could not be saved; reconnect.") }
        let now = environment.clock()
        let events = try state.decide(command, by: principal, at: now, entropy: UInt64.random(in: .min ... .max))
        guard !events.isEmpty else { return nil }
        let last = record(events, at: now)
        if let reply { pendingReplies[last] = reply }
        try await waitUntilDurable(last)
        return last
    }

    func settingsChange(_ change: SettingsChange, by principal: Principal, reply: ReplyTarget? = nil) async throws(CaucusError) -> Int? {
        try await perform(.updateSettings(change.applied(to: state.settings)), by: principal, reply: reply)
    }

    /// A new user joins. Its connection is attached at once, with a floor: it is sent the join
    /// reply (with a snapshot that includes everything up to the join) right after the join's
    /// last event is durable, and every event after that, so nothing falls between the
    /// snapshot and the live events.
    func join(_ request: JoinRequest, requestID: Int, connection: ClientConnection) async throws(CaucusError) -> UserID {
        guard !broken else { throw CaucusError(.internalError, "This session could not be saved; try again.") }
        let now = environment.clock()
        let events = try state.decide(.join(request), by: .server, at: now, entropy: 0)
        guard case .userJoined(let user, _)? = events.last else {
            throw CaucusError(.internalError, "A join made no user.")
        }
        let last = record(events, at: now)
        connections[user.id] = connection
        deliveryFloor[user.id] = last
        let secret = environment.secrets.secret(session: id, user: user.id)
        let snapshot = SessionSnapshot(state: state, viewer: user.id, seq: last)
        pendingReplies[last] = ReplyTarget(
            connection: connection, requestID: requestID,
            frame: Self.encode(.reply(re: requestID, result: .joined(user: user.id, secret: secret, snapshot: snapshot)), with: encoder))
        try await waitUntilDurable(last)
        return user.id
    }

    /// A returning connection takes its seat back: the reply, then every missed event it may
    /// see (or a fresh snapshot if they are no longer all kept), then live events.
    func resume(_ user: UserID, after lastSeq: Int, requestID: Int, connection: ClientConnection) async throws(CaucusError) {
        guard let seat = state.users[user] else {
            throw CaucusError(.resumeRefused, "This seat has expired or left; join again.")
        }
        guard lastSeq <= seq, lastSeq >= 0 else { throw CaucusError(.resumeRefused, "lastSeq \(lastSeq) is beyond this session's \(seq).") }
        if let old = connections[user], old !== connection {
            releaseRoster(for: old)
            old.close(.replaced, reason: "Resumed on another connection.")
        }
        connections[user] = connection
        let seen = max(lastSeq, joinedAt[user] ?? 0)
        let firstKept = recent.first?.seq ?? (durableSeq + 1)
        if seen + 1 >= firstKept {
            let missed = recent.filter { $0.seq > seen && $0.seq <= durableSeq && $0.wasSent(to: user) }
            connection.send(Self.encode(.reply(re: requestID, result: .resumed(user: user, replayingFrom: seen + 1, snapshot: nil)), with: encoder))
            for outgoing in missed { connection.send(outgoing.frame) }
        } else {
            let snapshot = SessionSnapshot(state: state, viewer: user, seq: seq)
            connection.send(Self.encode(.reply(re: requestID, result: .resumed(user: user, replayingFrom: nil, snapshot: snapshot)), with: encoder))
        }
        if !seat.presence.isConnected { _ = try? await perform(.resume(user), by: .server) }
    }

    /// The socket of `user` closed. If it was still the user's connection, the seat is held.
    func connectionClosed(_ user: UserID, connection: ClientConnection) async {
        guard !stopping, connections[user] === connection else { return }
        connections[user] = nil
        _ = rosterHold.release(ConnectionRef(connection))
        guard state.users[user]?.presence.isConnected == true else { return }
        _ = try? await perform(.connectionLost(user), by: .server)
    }

    /// The server is stopping: every client is told to reconnect and resume, and their
    /// departures are not recorded (the store is about to close; on the next start every seat
    /// that was connected is held for the grace).
    func closeForRestart() {
        stopping = true
        releaseRoster()
        for connection in connections.values { connection.close(.serviceRestart, reason: "The server is restarting; reconnect and resume.") }
        connections.removeAll()
    }

    func snapshot(for user: UserID) -> SessionSnapshot { SessionSnapshot(state: state, viewer: user, seq: seq) }

    /// A snapshot sent only once every event it includes has been delivered, so that the
    /// events a client already has and the snapshot agree, and none is skipped.
    func deliveredSnapshot(for user: UserID) async throws(CaucusError) -> SessionSnapshot {
        while durableSeq < seq { try await waitUntilDurable(seq) }
        releaseRoster(for: connections[user])
        return snapshot(for: user)
    }

    // MARK: - Recording and delivery

    /// Applies events, numbers and encodes them and queues them for the store. No suspension
    /// here, so commands never interleave between deciding and applying.
    private func record(_ events: [Event], at now: Instant) -> Int {
        for event in events {
            let departed = Self.departures(of: event, in: state)
            state.apply(event)
            seq += 1
            switch event {
            case .userJoined(let user, _): joinedAt[user.id] = seq
            case .userLeft(let id, _, _): joinedAt[id] = nil
            default: break
            }
            let sequenced = SequencedEvent(seq: seq, at: now, event: event)
            let outgoing = Outgoing(
                event: sequenced, frame: Self.encode(.event(sequenced), with: encoder),
                recipients: recipients(of: event, departed: departed))
            pending.append(outgoing)
            remember(outgoing)
        }
        environment.metrics.events.increment(by: events.count)
        scheduleTick()
        return seq
    }

    private func remember(_ outgoing: Outgoing) {
        // The window keeps who got an event only when it was not everyone: a list of every
        // user per event would cost (events × users) memory.
        let only: [UserID]? = if case .some(let users) = outgoing.recipients { users } else { nil }
        recent.append(Kept(seq: outgoing.event.seq, frame: outgoing.frame, only: only))
        if recent.count > environment.replayWindow { recent.removeFirst() }
    }

    /// Who gets an event: its audience after it applied, plus anyone it took out of the
    /// session (a removed user hears of it; everyone hears the session end).
    private func recipients(of event: Event, departed: [UserID]) -> Recipients {
        let audience = state.audience(of: event)
        let users = state.recipients(of: audience) + departed
        return audience == .everyone ? .everyone(users) : .some(users)
    }

    private static func departures(of event: Event, in state: SessionState) -> [UserID] {
        switch event {
        case .sessionEnded: Array(state.users.keys)
        case .userLeft(let id, _, _): [id]
        default: []
        }
    }

    private func waitUntilDurable(_ target: Int) async throws(CaucusError) {
        guard durableSeq < target else { return }
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                waiters.append((target, continuation))
                startFlushing()
            }
        } catch {
            throw CaucusError(.internalError, "The session could not be saved: \(error)")
        }
    }

    private func startFlushing() {
        guard !flushing else { return }
        flushing = true
        Task { await self.flush() }
    }

    /// Writes everything pending in one transaction, delivers it, and repeats while commands
    /// arrived meanwhile: group commit.
    private func flush() async {
        while !pending.isEmpty {
            let batch = pending
            pending.removeAll(keepingCapacity: true)
            do {
                try await environment.store.append(batch.map(\.event), to: id)
            } catch {
                await breakDown(error)
                return
            }
            deliver(batch)
            durableSeq = batch[batch.count - 1].event.seq
            // The name is free before anyone hears that the command ending the session is done.
            if case .sessionEnded = batch[batch.count - 1].event.event { await environment.sessionClosed(id) }
            let ready = waiters.filter { $0.seq <= durableSeq }
            waiters.removeAll { $0.seq <= durableSeq }
            for waiter in ready { waiter.continuation.resume() }
        }
        flushing = false
    }

    private func breakDown(_ error: any Error) async {
        environment.logger.error("session \(id) could not be saved: \(error)")
        broken = true
        pending.removeAll()
        pendingReplies.removeAll()
        _ = rosterHold.releaseAll()
        for waiter in waiters { waiter.continuation.resume(throwing: error) }
        waiters.removeAll()
        for connection in connections.values { connection.close(.storeFailure, reason: "The session could not be saved.") }
        connections.removeAll()
        tickTask?.cancel()
        flushing = false
        await environment.sessionClosed(id)
    }

    // MARK: - Clock

    /// Keeps one timer for the session's next deadline (timer warnings, countdowns, seats).
    private func scheduleTick() {
        let deadline = state.nextDeadline
        guard deadline != scheduledDeadline else { return }
        scheduledDeadline = deadline
        tickTask?.cancel()
        guard let deadline else { return }
        let delay = max(0, deadline.milliseconds - environment.clock().milliseconds)
        tickTask = Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(delay))
            guard !Task.isCancelled else { return }
            await self?.tick()
        }
    }

    private func tick() async {
        scheduledDeadline = nil
        _ = try? await perform(.tick, by: .server)
        scheduleTick()
    }

    static func encode(_ frame: ServerFrame, with encoder: StreamingJSONEncoder) -> ByteBuffer {
        // Encoded behind room for the frame header, which then goes in front without a copy.
        var bytes = [UInt8](repeating: 0, count: ServerFrames.headroom)
        // Encoding our own value types cannot fail; an empty frame would be a bug shown loudly
        // by every test that reads it.
        try? encoder.encode(frame, appendingTo: &bytes)
        return ServerFrames.text(reservedFront: bytes)
    }
}

extension SessionActor {
    /// Reads: answered from the state, changing nothing.
    func answer(_ query: Query, for user: UserID) async throws(CaucusError) -> ReplyResult {
        switch query {
        case .ping: return .pong
        case .getSnapshot: return .snapshot(try await deliveredSnapshot(for: user))
        case .isStarted: return .started(state.isStarted)
        case .getCommittedList: return .committed(state.snapshot)
        case .getPreList:
            guard state.role(of: user) == .host else {
                throw CaucusError(.notPermitted, "Only the host may read the pre-list.")
            }
            return .preList(state.preList)
        }
    }
}
