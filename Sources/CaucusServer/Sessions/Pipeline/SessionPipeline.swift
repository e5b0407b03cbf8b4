import CaucusCore
import CaucusProtocol
import CaucusStore

/// A live session's bookkeeping as a pure state machine: it decides and applies commands,
/// numbers their events, batches them for the store, and — once a batch is stored — says
/// who gets which frames, which replies they complete and which connections they end. It
/// performs nothing: every input returns the actions the session's shell must carry out
/// (the shape of postgres-nio's `PoolStateMachine`). Time and randomness come in as inputs,
/// so tests drive it with any interleaving of commands, store completions, failures, drops
/// and resumes, without sockets or sleeps.
///
/// Generic over how a connection is named and how a frame is encoded, so the server uses
/// sockets and bytes and the tests plain values.
struct SessionPipeline<Connection: Hashable, Encoding: SessionFrameEncoding> {
    typealias Frame = Encoding.Frame

    private(set) var state: SessionState
    /// The seq of the last event decided.
    private(set) var seq = 0
    /// The seq of the last event the store holds: nothing after it has reached anyone.
    var durableSeq = 0
    var lifecycle = Lifecycle.open
    /// The users' current connections.
    var connections: [UserID: Connection] = [:]
    /// Host seats removed because their person took the seat over from another device (the
    /// host is removed by nobody else): closed 4004 `replaced`, not 4003 `removed`.
    var takenOverSeats: Set<UserID> = []

    /// Decided and applied, waiting for the store.
    var pending: [Outgoing] = []
    /// The batch the store is writing now (at most one at a time: group commit).
    var storing: [Outgoing]?
    /// Callers waiting for their events to be durable, with the seq each waits for.
    var waiters: [(seq: Int, ticket: Ticket)] = []
    private var nextTicket = 0
    /// Recent events, for replay to resuming clients.
    var window: ReplayWindow<Frame>
    /// The seq of each present user's join: a resume never replays what came before it.
    private(set) var joinedAt: [UserID: Int] = [:]
    /// Replies owed once a command's last event is delivered, by that event's seq.
    var replies: [Int: [Reply]] = [:]
    /// A user whose join (or snapshot) already includes events up to this seq gets none of them.
    var deliveryFloor: [UserID: Int] = [:]
    /// Roster news held per connection for the roster window (see `RosterHold`).
    var rosterHold = RosterHold<Connection, Frame>()
    /// The roster window of a small session (zero: roster news is never held).
    let rosterWindow: Duration
    var holdsRoster: Bool { rosterWindow > .zero }
    private var scheduledDeadline: Instant?
    let encoding: Encoding
    /// The secret a user resumes its seat with.
    private let secret: (UserID) -> String
    /// The TURN servers a user's join or resume reply names, with credentials minted now.
    private let iceServers: (UserID, Instant) -> [ICEServer]
    /// Events between two snapshots of the state (0: none; see `SessionPipeline+Snapshots`).
    let snapshotInterval: Int
    /// The seq of the latest snapshot handed to the store (or restored from).
    var snapshotSeq = 0

    enum Lifecycle: Equatable {
        case open
        /// The server is stopping: clients were told to reconnect; nothing more is recorded.
        case stopping
        /// The store refused a batch: the session is closed and takes no more commands.
        case broken
    }

    /// A caller waiting for durability, as the shell knows it.
    struct Ticket: Hashable, Sendable {
        let number: Int
    }

    /// Where a command's reply goes: sent right after its last event, so it comes before any
    /// close that event causes (a host ending the session still hears "done").
    struct Reply {
        let connection: Connection
        let requestID: Int
        /// A reply other than `done(seq:)`.
        var frame: Frame? = nil
    }

    /// An event decided, with its encoded frame and who gets it.
    struct Outgoing {
        let event: SequencedEvent
        let frame: Frame
        let recipients: Recipients
    }

    enum Recipients {
        case everyone([UserID])
        case some([UserID])

        var users: [UserID] {
            switch self {
            case .everyone(let users), .some(let users): users
            }
        }
    }

    init(
        limits: SessionLimits, encoding: Encoding, replayWindow: Int, replayWindowBytes: Int = ReplayWindow<Encoding.Frame>.standardByteLimit,
        rosterWindow: Duration, snapshotInterval: Int = 0,
        secret: @escaping (UserID) -> String, iceServers: @escaping (UserID, Instant) -> [ICEServer] = { _, _ in [] }
    ) {
        self.state = SessionState(limits: limits)
        self.snapshotInterval = snapshotInterval
        self.encoding = encoding
        self.window = ReplayWindow(capacity: replayWindow, byteLimit: replayWindowBytes)
        self.rosterWindow = rosterWindow
        self.secret = secret
        self.iceServers = iceServers
    }

    /// Rebuilds the session from its stored log (after a restart): everything in it is durable.
    /// With a snapshot, the state starts from it and only the events after it are replayed
    /// (and kept for resuming clients: one who missed more gets a fresh snapshot).
    mutating func restore(_ events: [SequencedEvent], from snapshot: StoredSnapshot? = nil) {
        if let snapshot {
            state = snapshot.state
            seq = snapshot.seq
            snapshotSeq = snapshot.seq
        }
        for event in events {
            let departed = Self.departures(of: event.event, in: state)
            state.apply(event.event)
            noteMembership(event.event, seq: event.seq)
            let kept = outgoing(event, departed: departed)
            window.keep(kept, frameBytes: encoding.byteCount(of: kept.frame))
            seq = event.seq
        }
        durableSeq = seq
    }
}

// MARK: - Commands

extension SessionPipeline {
    /// Decides and applies a command; its events wait for the store. Returns the seq of its
    /// last event (nil if it caused none); `reply` is sent right after that event.
    mutating func perform(
        _ command: Command, by principal: Principal, at now: Instant, entropy: UInt64, reply: Reply? = nil
    ) throws(CaucusError) -> (last: Int?, actions: [Action]) {
        try requireOpen()
        let events = try state.decide(command, by: principal, at: now, entropy: entropy)
        guard !events.isEmpty else { return (nil, []) }
        let last = record(events, at: now)
        if let reply { replies[last, default: []].append(reply) }
        return (last, afterRecording())
    }

    /// A new user joins. Its connection is attached at once with a floor: it gets the join
    /// reply (a snapshot including everything up to the join) once the join is durable, and
    /// every event after it, so nothing falls between the snapshot and the live events.
    mutating func join(
        _ request: JoinRequest, requestID: Int, connection: Connection, at now: Instant
    ) throws(CaucusError) -> (user: UserID, last: Int, actions: [Action]) {
        try requireOpen()
        let events = try state.decide(.join(request), by: .server, at: now, entropy: 0)
        // The user's arrival is not always the last event: a host token reclaiming the role
        // from an heir who broadcasts or listens in ends those after it. The reply's snapshot
        // is taken after them all.
        let joined = events.lazy.compactMap { event -> SessionUser? in
            guard case .userJoined(let user, _) = event else { return nil }
            return user
        }.last
        guard let user = joined else {
            throw CaucusError(.internalError, "A join made no user.")
        }
        let last = record(events, at: now)
        connections[user.id] = connection
        deliveryFloor[user.id] = last
        rosterHold.attach(connection, through: last)
        let snapshot = SessionSnapshot(state: state, viewer: user.id, seq: last)
        replies[last, default: []].append(Reply(
            connection: connection, requestID: requestID,
            frame: encoding.joinedReply(
                re: requestID, user: user.id, secret: secret(user.id), snapshot: snapshot, iceServers: iceServers(user.id, now))))
        return (user.id, last, afterRecording())
    }

    /// A returning connection takes its seat back: the reply, then every missed event it may
    /// see (or a fresh snapshot if they are no longer all kept), then live events. Returns
    /// the seq of the `userResumed` event, when the seat was held.
    mutating func resume(
        _ user: UserID, after lastSeq: Int, requestID: Int, connection: Connection, mediaKept: Bool = false, at now: Instant
    ) throws(CaucusError) -> (last: Int?, actions: [Action]) {
        try requireOpen()
        guard let seat = state.users[user] else {
            throw CaucusError(.resumeRefused, "This seat has expired or left; join again.")
        }
        guard lastSeq >= 0, lastSeq <= seq else {
            throw CaucusError(.resumeRefused, "lastSeq \(lastSeq) is beyond this session's \(seq).")
        }
        var actions: [Action] = []
        if let old = connections[user], old != connection {
            actions += flushHeldRoster(of: old)
            rosterHold.forget(old)
            actions.append(.close(old, .replaced, reason: "Resumed on another connection."))
        }
        connections[user] = connection
        let seen = max(lastSeq, joinedAt[user] ?? 0)
        // Held roster news skips what its first frames cover (a replay: every durable event;
        // a snapshot: every event) and what its join or an earlier snapshot still owed covers.
        rosterHold.attach(connection, through: max(seen, durableSeq, deliveryFloor[user] ?? 0))
        let relays = iceServers(user, now)
        if let missed = window.frames(after: seen, through: durableSeq, for: user) {
            let reply = encoding.frame(.reply(re: requestID, result: .resumed(user: user, replayingFrom: seen + 1, snapshot: nil, iceServers: relays, mediaKept: mediaKept)))
            actions.append(.replay(connection, frames: [reply] + missed))
        } else {
            // A snapshot must not promise what is not durable yet: it goes out with the last
            // pending event, and the connection skips everything the snapshot includes.
            let snapshot = SessionSnapshot(state: state, viewer: user, seq: seq)
            let reply = encoding.frame(.reply(re: requestID, result: .resumed(user: user, replayingFrom: nil, snapshot: snapshot, iceServers: relays, mediaKept: mediaKept)))
            rosterHold.attach(connection, through: seq)
            if durableSeq == seq {
                actions.append(.send([Delivery(connection: connection, frames: [reply])]))
            } else {
                replies[seq, default: []].append(Reply(connection: connection, requestID: requestID, frame: reply))
                deliveryFloor[user] = seq
            }
        }
        guard !seat.presence.isConnected else { return (nil, actions) }
        // Nothing may throw past this point: the connection is already attached. A seat that
        // is held can always be resumed, so a refusal here would be a bug, not an input.
        let resumed = (try? perform(.resume(user), by: .server, at: now, entropy: 0)) ?? (last: nil, actions: [])
        return (resumed.last, actions + resumed.actions)
    }

    /// The socket of `user` closed. If it was still the user's connection, the seat is held.
    mutating func connectionClosed(_ user: UserID, connection: Connection, at now: Instant) -> (last: Int?, actions: [Action]) {
        guard lifecycle == .open, connections[user] == connection else { return (nil, []) }
        connections[user] = nil
        rosterHold.forget(connection)
        guard state.users[user]?.presence.isConnected == true else { return (nil, []) }
        return (try? perform(.connectionLost(user), by: .server, at: now, entropy: 0)) ?? (nil, [])
    }

    /// After a restart, users who were connected lost their connection with the old process:
    /// their seats are held for the grace from now.
    mutating func holdSeatsAfterRestart(at now: Instant) -> [Action] {
        var actions: [Action] = []
        for user in state.users.values where user.presence.isConnected {
            if let lost = try? perform(.connectionLost(user.id), by: .server, at: now, entropy: 0) { actions += lost.actions }
        }
        return actions + rescheduleTick()
    }

    /// The session's deadline came: timers, countdowns and expired seats move on.
    mutating func tick(at now: Instant) -> [Action] {
        scheduledDeadline = nil
        let ticked = (try? perform(.tick, by: .server, at: now, entropy: 0))?.actions ?? []
        return ticked + rescheduleTick()
    }

    /// The server is stopping: every client is told to reconnect and resume, and nothing more
    /// is recorded (the store is about to close; on the next start every seat that was
    /// connected is held for the grace).
    mutating func shutdown() -> [Action] {
        guard lifecycle == .open else { return [] }
        lifecycle = .stopping
        var actions = rosterWindowEnded()
        rosterHold = RosterHold()
        for connection in connections.values {
            actions.append(.close(connection, .serviceRestart, reason: "The server is restarting; reconnect and resume."))
        }
        connections.removeAll()
        scheduledDeadline = nil
        actions.append(.scheduleTick(at: nil))
        return actions
    }

    /// Whether a caller must wait for `seq` to be durable, and under which ticket.
    mutating func awaitDurable(_ target: Int) -> Durability {
        if lifecycle == .broken { return .failed(Self.storeFailure) }
        guard durableSeq < target else { return .durable }
        let ticket = Ticket(number: nextTicket)
        nextTicket += 1
        waiters.append((target, ticket))
        return .wait(ticket)
    }

    enum Durability: Equatable {
        case durable
        case wait(Ticket)
        case failed(CaucusError)
    }

    static var storeFailure: CaucusError { CaucusError(.internalError, "The session could not be saved; reconnect.") }

    private func requireOpen() throws(CaucusError) {
        switch lifecycle {
        case .open: return
        case .stopping: throw CaucusError(.internalError, "The server is restarting; reconnect and resume.")
        case .broken: throw Self.storeFailure
        }
    }
}

// MARK: - Recording

extension SessionPipeline {
    /// Applies events, numbers and encodes them and queues them for the store.
    private mutating func record(_ events: [Event], at now: Instant) -> Int {
        for event in events {
            let departed = Self.departures(of: event, in: state)
            if case .userLeft(let id, .removed, _) = event, id == state.hostID { takenOverSeats.insert(id) }
            state.apply(event)
            seq += 1
            noteMembership(event, seq: seq)
            let outgoing = outgoing(SequencedEvent(seq: seq, at: now, event: event), departed: departed)
            pending.append(outgoing)
            window.keep(outgoing, frameBytes: encoding.byteCount(of: outgoing.frame))
        }
        return seq
    }

    private mutating func noteMembership(_ event: Event, seq: Int) {
        switch event {
        case .userJoined(let user, _): joinedAt[user.id] = seq
        case .userLeft(let id, _, _): joinedAt[id] = nil
        default: break
        }
    }

    /// Starts a store write if none is under way, and follows the next deadline.
    private mutating func afterRecording() -> [Action] {
        var actions: [Action] = []
        if storing == nil, let append = startStoring() { actions.append(append) }
        return actions + rescheduleTick()
    }

    /// Hands everything pending to the store as one batch.
    mutating func startStoring() -> Action? {
        guard storing == nil, !pending.isEmpty else { return nil }
        storing = pending
        pending.removeAll(keepingCapacity: true)
        // Everything decided is in this batch, so the state is the state at its last event.
        return .append(storing!.map(\.event), snapshot: snapshotDue())
    }

    private mutating func rescheduleTick() -> [Action] {
        guard lifecycle == .open else { return [] }
        let deadline = state.nextDeadline
        guard deadline != scheduledDeadline else { return [] }
        scheduledDeadline = deadline
        return [.scheduleTick(at: deadline)]
    }

    private func outgoing(_ event: SequencedEvent, departed: [UserID]) -> Outgoing {
        Outgoing(event: event, frame: encoding.frame(.event(event)), recipients: recipients(of: event.event, departed: departed))
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
}
