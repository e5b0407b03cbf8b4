import CaucusCore
import CaucusJSON
import CaucusMedia
import CaucusProtocol
import CaucusStore
import NIOCore

/// One live session: the shell around its `SessionPipeline`. It feeds the pipeline inputs
/// (commands, store completions, connections coming and going, deadlines) and performs the
/// actions it returns — store writes, socket writes and closes, timers — holding nothing of
/// the session's bookkeeping itself, only the handles of what it started: the callers
/// waiting for durability, the store write under way, the tick and the roster window.
actor SessionActor {
    typealias Pipeline = SessionPipeline<ConnectionRef, WireFrames>

    let id: StoredSessionID
    let app: String
    let environment: SessionEnvironment
    var pipeline: Pipeline
    private var waiting: [Pipeline.Ticket: CheckedContinuation<Void, any Error>] = [:]
    private var storeTask: Task<Void, Never>?
    private var tickTask: Task<Void, Never>?
    private var rosterTask: Task<Void, Never>?
    /// Several nodes: its opening was refused because another node opened the same name first.
    private(set) var lostNameRace = false
    /// The media routing's bookkeeping (`SessionActor+MediaRouting.swift`).
    var mediaRouting = MediaRoutingState()

    var state: SessionState { pipeline.state }
    var seq: Int { pipeline.seq }

    /// Where a command's reply goes (see `SessionPipeline.Reply`).
    struct ReplyTarget: Sendable {
        let connection: ClientConnection
        let requestID: Int
    }

    /// What the store records of the session with its first batch (nil for a restored one).
    private let opening: SessionOpening?
    /// Several nodes: the lease epoch every write of this node carries (from the opening, or
    /// from taking the session over); nil on one node. A new holder means a new actor.
    let leaseEpoch: LeaseEpoch?

    init(
        id: StoredSessionID, app: String, limits: SessionLimits, opening: SessionOpening?, leaseEpoch: LeaseEpoch? = nil,
        environment: SessionEnvironment
    ) {
        self.id = id
        self.app = app
        self.opening = opening
        self.leaseEpoch = leaseEpoch ?? (opening?.lease == nil ? nil : opening?.initialLease.epoch)
        self.environment = environment
        let secrets = environment.secrets
        let turn = environment.turn
        self.pipeline = Pipeline(
            limits: limits, encoding: WireFrames(), replayWindow: environment.replayWindow,
            rosterWindow: environment.rosterWindow, snapshotInterval: environment.snapshotInterval,
            secret: { secrets.secret(session: id, user: $0) },
            iceServers: { user, now in turn?.iceServers(session: id, user: user, at: now) ?? [] })
    }

    /// Rebuilds the session after a restart (on a fresh actor): its latest snapshot, if any,
    /// then the events after it.
    func restore(_ stored: StoredSession) {
        pipeline.restore(stored.events, from: stored.snapshot)
    }

    /// Users who were connected lost their connection with the old process: their seats are
    /// held for the grace from now.
    func holdSeatsAfterRestart() {
        record { $0.holdSeatsAfterRestart(at: environment.clock()) }
    }

    // MARK: - Inputs

    /// Decides, applies, persists and delivers a command's events; returns the last seq.
    /// With `reply`, the session answers `done` right after the last event (when there is one).
    func perform(_ command: Command, by principal: Principal, reply: ReplyTarget? = nil) async throws(CaucusError) -> Int? {
        let now = environment.clock()
        let entropy = UInt64.random(in: .min ... .max)
        let target = reply.map { Pipeline.Reply(connection: ConnectionRef($0.connection), requestID: $0.requestID) }
        let last = try record { (pipeline) throws(CaucusError) in
            try pipeline.perform(command, by: principal, at: now, entropy: entropy, reply: target)
        }
        guard let last else {
            // A keyed repeat: answered as the first was, once that is durable (it may still
            // be on its way to the store).
            if case .chat(_, _, .some) = command { try await waitUntilDurable(pipeline.seq) }
            return nil
        }
        try await waitUntilDurable(last)
        return last
    }

    func settingsChange(_ change: SettingsChange, by principal: Principal, reply: ReplyTarget? = nil) async throws(CaucusError) -> Int? {
        try await perform(.updateSettings(change.applied(to: state.settings)), by: principal, reply: reply)
    }

    /// A new user joins; returns once its join is durable and its reply on the way.
    func join(_ request: JoinRequest, requestID: Int, connection: ClientConnection) async throws(CaucusError) -> UserID {
        let now = environment.clock()
        let (user, last) = try record { (pipeline) throws(CaucusError) in
            let joined = try pipeline.join(request, requestID: requestID, connection: ConnectionRef(connection), at: now)
            // Before the actions, the reply among them: the connection stops waiting to join first.
            connection.joinTaken()
            return ((joined.user, joined.last), joined.actions)
        }
        try await waitUntilDurable(last)
        return user
    }

    /// A returning connection takes its seat back (see `SessionPipeline.resume`); its reply says
    /// whether the user's media peer lives on (then its SDK keeps it).
    func resume(_ user: UserID, after lastSeq: Int, requestID: Int, connection: ClientConnection) async throws(CaucusError) {
        // A resume that waited (for the store, say) while its client gave it up and resumed
        // on another connection must not take the seat from that live connection (4004 is
        // final for the SDK): a closed connection resumes nothing.
        guard !connection.isGone else {
            throw CaucusError(.resumeRefused, "This connection closed before its resume could take the seat; nothing changed.")
        }
        let now = environment.clock()
        let last = try record { (pipeline) throws(CaucusError) in
            let resumed = try pipeline.resume(
                user, after: lastSeq, requestID: requestID, connection: ConnectionRef(connection), mediaKept: hasLivePeer(user), at: now)
            // Before the actions, the reply among them: the connection stops waiting to join first.
            connection.joinTaken()
            return resumed
        }
        if let last { try? await waitUntilDurable(last) }
    }

    /// The socket of `user` closed. If it was still the user's connection, the seat is held.
    func connectionClosed(_ user: UserID, connection: ClientConnection) async {
        let last = record { $0.connectionClosed(user, connection: ConnectionRef(connection), at: environment.clock()) }
        if let last { try? await waitUntilDurable(last) }
    }

    /// The server is stopping: every client is told to reconnect and resume. Returns once
    /// the store holds everything decided before, with no task of this session left running.
    func closeForRestart() async {
        perform(pipeline.shutdown())
        rosterTask?.cancel()
        tickTask?.cancel()
        while let task = storeTask {
            await task.value
            if storeTask == task { storeTask = nil }
        }
        if let snapshot = pipeline.snapshotAtShutdown() { await save(snapshot) }
    }

    /// Several nodes: this node no longer holds the session's lease (another took it, or it
    /// could not renew it in time). Nothing more is written here: every client is told to
    /// reconnect and resumes on the node that has it now; the session leaves this node.
    func leaseLost() async {
        let actions = pipeline.leaseLost()
        guard !actions.isEmpty else { return }
        environment.media.dropSession(id, reason: "leaseLost")
        rosterTask?.cancel()
        perform(actions)
        await environment.sessionClosed(id)
    }

    /// A snapshot sent only once every event it includes has been delivered, so that the
    /// events a client already has and the snapshot agree, and none is skipped.
    func deliveredSnapshot(for user: UserID) async throws(CaucusError) -> SessionSnapshot {
        while true {
            let (snapshot, actions) = pipeline.deliveredSnapshot(for: user)
            perform(actions)
            if let snapshot { return snapshot }
            try await waitUntilDurable(pipeline.seq)
        }
    }

    /// A `ping` from a joined user: how many events it was sent after `after`, counted once
    /// everything held for it is on its way, so that the reply, sent next, follows them all.
    func ping(from user: UserID, after: Int?) -> ReplyResult {
        let (result, actions) = pipeline.ping(from: user, after: after)
        perform(actions)
        return result
    }

    // MARK: - Performing actions

    /// Runs one input of the pipeline and performs its actions; counts the events it decided.
    private func record<Result, Failure: Error>(
        _ input: (inout Pipeline) throws(Failure) -> (Result, [Pipeline.Action])
    ) throws(Failure) -> Result {
        let before = pipeline.seq
        let (result, actions) = try input(&pipeline)
        if pipeline.seq > before { environment.metrics.events.increment(by: pipeline.seq - before) }
        perform(actions)
        return result
    }

    private func record(_ input: (inout Pipeline) -> [Pipeline.Action]) {
        record { (pipeline) -> ((), [Pipeline.Action]) in ((), input(&pipeline)) }
    }

    func perform(_ actions: [Pipeline.Action]) {
        for action in actions {
            switch action {
            case .append(let events, let snapshot):
                dropMedia(after: events)
                // The state now is the state at the batch's last event (everything decided is in
                // the batch): the routing it implies is computed now and waits for the delivery.
                holdRouting(after: MediaRoutingImpact(of: events.lazy.map(\.event)), through: events.last?.seq ?? pipeline.seq)
                handOverRecording()
                // The session's writes, not the request's: no request's store deadline reaches them.
                storeTask = StoreDeadline.unbounded { Task { await self.store(events, snapshot: snapshot) } }
            case .send(let deliveries):
                let sent = ClientConnection.send(deliveries.map { ($0.connection.connection, $0.frames) })
                environment.metrics.deliveries.increment(by: sent)
            case .sendShared(let connections, let frames):
                let sent = ClientConnection.send(frames, toEach: connections.map(\.connection))
                environment.metrics.deliveries.increment(by: sent)
            case .replay(let ref, let frames):
                if ref.connection.sendReplay(frames) { environment.metrics.deliveries.increment(by: frames.count) }
            case .answered(let ref, let requestIDs):
                ref.connection.answeredAtBreak(requestIDs)
            case .close(let ref, let code, let reason):
                ref.connection.close(code, reason: reason)
            case .complete(let tickets, let failure):
                for ticket in tickets {
                    guard let continuation = waiting.removeValue(forKey: ticket) else { continue }
                    if let failure { continuation.resume(throwing: failure) } else { continuation.resume() }
                }
            case .scheduleTick(let deadline):
                scheduleTick(at: deadline)
            case .startRosterWindow(let window):
                rosterTask?.cancel()
                let clock = environment.clock
                rosterTask = StoreDeadline.unbounded {
                    Task { [weak self] in
                        try? await clock.sleep(for: window)
                        guard !Task.isCancelled else { return }
                        await self?.endRosterWindow()
                    }
                }
            case .sessionClosed:
                // Only a store answer yields it, and `store(_:)` awaits it after the rest.
                break
            }
        }
    }

    /// A user who leaves (by choice, removal or timeout) loses its media peer at once, as soon
    /// as the session decides it, not once the store has it; so does everyone when the session ends.
    private func dropMedia(after events: [SequencedEvent]) {
        for sequenced in events {
            switch sequenced.event {
            case .userLeft(let user, _, _):
                mediaRouting.livePeers[user] = nil
                environment.media.drop(MediaPeerKey(session: id, user: user))
            case .sessionEnded: environment.media.dropSession(id)
            default: continue
            }
        }
    }

    /// Writes one batch (the one that begins the log opens the session's row), then tells the
    /// pipeline how it went; then saves the snapshot that came with it, if any.
    private func store(_ events: [SequencedEvent], snapshot: StoredSnapshot?) async {
        let actions: [Pipeline.Action]
        var failure: (any Error)?
        do {
            // The opening batch claims no lease: it writes the row, and the opener's lease with it.
            let opens = events.first?.seq == 1
            try await environment.store.append(events, to: id, opening: opens ? opening : nil, lease: opens ? nil : leaseEpoch)
            actions = pipeline.batchStored()
        } catch let error as StoreError where error.code == .liveNameTaken {
            // Another node opened a live session of this name first: the joins go there.
            failure = error
            lostNameRace = true
            actions = pipeline.openingRefused()
        } catch let error as StoreError where error.code == .fenced {
            environment.logger.warning("session \(id) was taken over by another node: \(error)")
            environment.metrics.leasesLost.increment()
            failure = error
            environment.media.dropSession(id, reason: "leaseLost")
            actions = pipeline.leaseLost()
        } catch {
            environment.logger.error("session \(id) could not be saved: \(error)")
            failure = error
            actions = pipeline.storeFailed()
            // The session closes; rebuilt from the store, it says again what it records.
            environment.media.stopRecording(of: id, reason: "storeFailed")
        }
        let clock = ContinuousClock()
        let started = clock.now
        // Performed at once, with no suspension after the pipeline's step: another input
        // running in between (a snapshot, a shutdown) would see the batch durable but not sent.
        // Forwarding switches to the routing the batch explains first, its slot maps after the
        // events (`switchDurableRouting`).
        if failure == nil { switchDurableRouting() }
        perform(actions)
        if failure == nil {
            releaseRouting()
        } else {
            mediaRouting.held.removeAll()
            mediaRouting.switched = 0
        }
        environment.metrics.fanOut.recordInterval(clock.now - started)
        if actions.contains(where: { if case .sessionClosed = $0 { true } else { false } }) {
            await environment.sessionClosed(id)
        }
        if let snapshot, failure == nil { await save(snapshot) }
    }

    /// Saves a snapshot of stored events. A failure is logged, not fatal: the log still holds
    /// everything, and the next rebuild replays a little more of it.
    private func save(_ snapshot: StoredSnapshot) async {
        do {
            try await environment.store.saveSnapshot(snapshot, of: id, lease: leaseEpoch)
        } catch {
            environment.logger.warning("session \(id) could not save its snapshot at \(snapshot.seq): \(error)")
        }
    }

    private func waitUntilDurable(_ target: Int) async throws(CaucusError) {
        switch pipeline.awaitDurable(target) {
        case .durable:
            return
        case .failed(let error):
            throw error
        case .wait(let ticket):
            do {
                try await withCheckedThrowingContinuation { waiting[ticket] = $0 }
            } catch {
                throw (error as? CaucusError) ?? Pipeline.storeFailure
            }
        }
    }

    /// Keeps one timer, for the session's next deadline (timer warnings, countdowns, seats).
    private func scheduleTick(at deadline: Instant?) {
        tickTask?.cancel()
        tickTask = nil
        guard let deadline else { return }
        let clock = environment.clock
        // The session's timer outlives whatever request scheduled it (a takeover's, bounded by
        // the lease's horizon): it inherits no store deadline.
        tickTask = StoreDeadline.unbounded {
            Task { [weak self] in
                try? await clock.sleep(until: deadline)
                guard !Task.isCancelled else { return }
                await self?.tick()
            }
        }
    }

    private func tick() {
        record { $0.tick(at: environment.clock()) }
    }

    private func endRosterWindow() {
        perform(pipeline.rosterWindowEnded())
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

/// A connection as a key, by identity.
struct ConnectionRef: Hashable, Sendable {
    let connection: ClientConnection

    init(_ connection: ClientConnection) { self.connection = connection }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.connection === rhs.connection }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(connection)) }
}

extension SessionActor {
    /// Reads: answered from the state, changing nothing.
    func answer(_ query: Query, for user: UserID) async throws(CaucusError) -> ReplyResult {
        switch query {
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
