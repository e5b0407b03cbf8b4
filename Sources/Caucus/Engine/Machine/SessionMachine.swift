import CaucusCore
import CaucusProtocol

/// The SDK's side of a session as a pure state machine: joining (entry URLs, redirects to the
/// serving node, passwords), the requests waiting for replies and their bounds, the local
/// model and the events it turns into, the keepalive and the check for missed events,
/// reconnecting and resuming (backoff, redirects, network changes), leaving (online or
/// offline) and the end of the session. It performs nothing: every input (an app command, a
/// socket opened, failed or closed, a server frame, a timer fired, a network change) returns
/// the actions the engine's shell must carry out, in order. Time comes in with each input
/// and randomness as a seed, so tests drive it directly, without sockets or sleeps (the
/// shape of the server's `SessionPipeline`).
///
/// Sockets and the app's waiting calls are named by numbers the shell hands out
/// (`SocketID`, `Ticket`); a socket being opened is named by its `attempt`.
struct SessionMachine: Sendable {
    typealias SocketID = Int
    typealias Instant = ContinuousClock.Instant

    /// How many `otherNode` redirects one attempt follows: one is normal; more means nodes
    /// disagree for a moment (a takeover under way), and the next attempt asks again.
    static let redirectLimit = 3

    let settings: Settings
    var phase = Phase.idle
    /// What a joined user holds: the secret to resume with and the local model. Set by the
    /// join, kept while `connected`, `reconnecting` or `leaving`, and gone when the session is
    /// over for this user (a `shutdown` keeps it: the session object is gone anyway).
    private(set) var seat: Seat?
    /// The node serving the session (the one the join reached, or was sent to).
    private(set) var url = ""
    /// Several nodes: where to try next when `url` cannot be reached.
    private(set) var entryURLs: [String] = []
    private var nextEntry = 0
    /// Why the session is over, when an event said so before the socket closed.
    private var endReason: SessionLeftReason?
    var pending: [Int: Pending] = [:]
    /// App calls made while joining or reconnecting, sent once connected.
    var deferred: [Deferred] = []
    /// The socket a keepalive or network change is checking, and who waits for the answer.
    var probe: Probe?
    /// When the current socket last brought a frame (or was opened).
    private(set) var lastHeard: (socket: SocketID, at: Instant)?
    /// Rooms each recent status change created, by seq: what create-rooms calls return.
    private var createdRooms: [Int: [RoomID]] = [:]
    private var connection = ConnectionState.disconnected
    private var nextRequestID = 1
    private var nextAttempt = 1
    var random: MachineRandom
    /// The actions of the input being handled.
    private var output: [Action] = []

    init(settings: Settings, seed: UInt64) {
        self.settings = settings
        random = MachineRandom(seed: seed)
    }

    // MARK: - Types

    /// The timing and the nodes, from `CaucusSession.Configuration`.
    struct Settings: Sendable {
        var requestTimeout: Duration
        var connectTimeout: Duration
        var pingInterval: Duration
        var missedEventCheckInterval: Duration
        var reconnectDelay: ClosedRange<Duration>
        var reconnectExtraTime: Duration
        var nodeURLs: [String]
    }

    struct Seat: Sendable {
        let secret: String
        var model: LocalModel
    }

    /// Where the connection is.
    enum Phase: Sendable {
        case idle
        case joining(Joining)
        case connected(SocketID)
        case reconnecting(Reconnecting)
        case leaving(Leaving)
        case closed
    }

    struct Credentials: Sendable, Equatable {
        let url: String
        let session: String
        let userName: String
        let token: String
    }

    struct Joining: Sendable {
        enum Stage: Sendable {
            /// Opening `url`; `remaining` entry URLs are tried in turn if it fails.
            case opening(attempt: Int, url: String, remaining: [String])
            /// Following a redirect to the node that serves the session.
            case moving(attempt: Int, url: String)
            /// The join request is on its way.
            case joining(SocketID)
            /// The app's password hook was asked after this refusal.
            case askingPassword(SocketID, after: ServerError)
            /// The join's connection was closed 4009 (its address had as many waiting to join
            /// as the server allows); a new one opens when `attempt`'s delay ends.
            case waitingToRetry(attempt: Int)
        }

        let ticket: Ticket
        let credentials: Credentials
        var password: String?
        var redirects = 0
        /// Connections closed 4009 so far (`SessionMachine+CrowdedJoin`).
        var crowdedRetries = 0
        var stage: Stage
    }

    struct Reconnecting: Sendable {
        enum Stage: Sendable, Equatable {
            /// Waiting out the backoff before `attempt`.
            case waiting(attempt: Int)
            case opening(attempt: Int, url: String, redirects: Int)
            /// The resume request is on its way.
            case resuming(SocketID, redirects: Int)
            /// Resumed: the ping after the replay is on its way. `mediaKept`: the server still
            /// has this user's media peer (the resume reply's), which the SDK then keeps.
            case confirming(SocketID, mediaKept: Bool)
        }

        /// When the connection dropped: the schedule's deadline counts from here.
        let dropped: Instant
        var schedule: ReconnectSchedule
        var stage: Stage
    }

    struct Leaving: Sendable {
        let socket: SocketID
    }

    /// A request sent and not yet answered.
    struct Pending: Sendable {
        let socket: SocketID
        let sent: Instant
        let patience: Patience
        let purpose: Purpose
    }

    /// Why a request was sent: who takes its answer.
    enum Purpose: Sendable, Equatable {
        case app(Ticket)
        case join
        case resume
        /// The ping after a resume: answered once every missed event has arrived.
        case confirmResume
        case probe
        case missedEventCheck(asked: Int)
        /// A `getSnapshot` whose reply replaces the model (an event went missing).
        case resynchronize
        case leave(Ticket, endSession: Bool)
    }

    /// How long a request may wait for its reply.
    enum Patience: Sendable, Equatable {
        /// At most this long in all.
        case total(Duration)
        /// As long as its socket keeps bringing frames, but never this long without one: a
        /// reply queued behind a long replay is still awaited, a dead connection is not.
        case quiet(Duration)

        var duration: Duration {
            switch self {
            case .total(let limit), .quiet(let limit): limit
            }
        }
    }

    enum Deferred: Sendable {
        case request(WireRequest, Ticket)
        case leave(endSession: Bool, Ticket)
    }

    struct Probe: Sendable {
        let socket: SocketID
        /// What is logged if the socket does not answer.
        let reason: String
        var waiters: [Ticket]
    }

    // MARK: - Queries

    /// The socket the session reads now, if any.
    var currentSocket: SocketID? {
        switch phase {
        case .idle, .closed: nil
        case .joining(let joining):
            switch joining.stage {
            case .opening, .moving, .waitingToRetry: nil
            case .joining(let socket), .askingPassword(let socket, _): socket
            }
        case .connected(let socket): socket
        case .leaving(let leaving): leaving.socket
        case .reconnecting(let reconnecting):
            switch reconnecting.stage {
            case .waiting, .opening: nil
            case .resuming(let socket, _), .confirming(let socket, _): socket
            }
        }
    }

    var model: LocalModel? { seat?.model }

    /// The rooms the last status change up to `seq` created: a create-rooms call's result. A
    /// command's events are numbered together and reach this client before its reply, so the
    /// last status change up to the reply's seq is the one that created them.
    func createdRooms(upTo seq: Int) -> [RoomID]? {
        guard let change = createdRooms.keys.filter({ $0 <= seq }).max() else { return nil }
        return createdRooms[change]
    }

    // MARK: - Output

    mutating func emit(_ action: Action) { output.append(action) }

    /// The actions gathered while handling one input.
    mutating func flush() -> [Action] {
        defer { output = [] }
        return output
    }

    mutating func deliver(_ notices: Notice...) { emit(.deliver(notices)) }

    mutating func complete(_ ticket: Ticket, _ completion: Completion) { emit(.complete(ticket, completion)) }

    mutating func setConnection(_ state: ConnectionState) {
        guard connection != state else { return }
        connection = state
        emit(.connection(state))
    }

    mutating func newAttempt() -> Int {
        defer { nextAttempt += 1 }
        return nextAttempt
    }

    mutating func heard(_ socket: SocketID, at now: Instant) { lastHeard = (socket, now) }

    mutating func setSeat(_ seat: Seat?) {
        self.seat = seat
        emit(.publish(seat?.model))
    }

    /// Changes the model in place (no copy of the state), if there is one.
    mutating func withModel<T>(_ change: (inout LocalModel) -> T) -> T? {
        guard seat != nil else { return nil }
        return change(&seat!.model)
    }

    /// Changes the model in place and publishes it.
    mutating func updateModel(_ change: (inout LocalModel) -> Void) {
        guard withModel(change) != nil else { return }
        emit(.publish(seat?.model))
    }

    // MARK: - Nodes

    /// The entry URLs a join starts from: the app's, then `Settings.nodeURLs`.
    mutating func setEntries(_ url: String) {
        self.url = url
        entryURLs = [url] + settings.nodeURLs.filter { $0 != url }
        nextEntry = 0
    }

    mutating func serve(from url: String) { self.url = url }

    /// `url` could not be reached: the next entry URL, in turn.
    mutating func moveToNextEntry() {
        guard !entryURLs.isEmpty else { return }
        url = entryURLs[nextEntry]
        nextEntry = (nextEntry + 1) % entryURLs.count
    }

    /// The node a refusal sends the client to, if it is an `otherNode` one.
    static func redirect(_ result: Result<ReplyResult, SessionError>) -> String? {
        guard case .failure(.refused(let error)) = result, error.errorCode == .otherNode else { return nil }
        return error.nodeURL?.absoluteString
    }

    // MARK: - Ends

    mutating func clearEndReason() { endReason = nil }

    mutating func noteEnd(_ reason: SessionLeftReason) { endReason = reason }

    var knownEnd: SessionLeftReason? { endReason }

    mutating func rememberCreatedRooms(before: SessionState, after: SessionState, seq: Int) {
        let old = Set(before.rooms.map(\.id))
        createdRooms[seq] = after.rooms.map(\.id).filter { !old.contains($0) }
        if createdRooms.count > 32, let oldest = createdRooms.keys.min() { createdRooms[oldest] = nil }
    }

    mutating func takeRequestID() -> Int {
        defer { nextRequestID += 1 }
        return nextRequestID
    }
}
