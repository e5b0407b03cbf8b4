import CaucusCore
import CaucusProtocol
import Foundation

/// The session's one serial owner of the connection, the pending requests and the local
/// model. Each socket has one reader task that hands it frames in order; handling a frame
/// never suspends, so an event is applied, published and delivered before the next frame
/// (and before the reply of the call that caused it) is looked at.
actor SessionEngine {
    enum Phase: Equatable {
        case idle, joining, connected, reconnecting, leaving, closed
    }

    struct Pending {
        let socket: Int
        let sent: ContinuousClock.Instant
        let continuation: CheckedContinuation<Result<ReplyResult, SessionError>, Never>
        let timeout: Task<Void, Never>
    }

    /// How long a request may wait for its reply.
    enum Patience: Sendable {
        /// At most this long in all.
        case total(Duration)
        /// As long as its socket keeps bringing frames, but never this long without one: a
        /// reply queued behind a long replay is still awaited, a dead connection is not.
        case quiet(Duration)
    }

    nonisolated let configuration: CaucusSession.Configuration
    nonisolated let hub: EventHub
    nonisolated let published = PublishedState()
    /// The server's slot maps, on their way to this user's media peer (Media/).
    nonisolated let mediaSlots = MediaSlotRelay()

    var phase = Phase.idle
    /// The node serving the session (the one the join reached, or was sent to).
    var url = ""
    /// Several nodes: where to try next when `url` cannot be reached (see `SessionEngine+Nodes`).
    var entryURLs: [String] = []
    var nextEntry = 0
    var socket: Socket?
    var secret: String?
    var model: LocalModel? {
        didSet { published.publish(model) }
    }
    /// Why the session is over, when an event said so before the socket closed.
    var endReason: SessionLeftReason?
    var reconnectTask: Task<Void, Never>?
    /// When the connection dropped, and what the reconnect loop is doing (SessionEngine+Reconnect).
    var reconnectProgress = ReconnectProgress()
    /// The socket a network change is checking with a ping (SessionEngine+NetworkChange).
    var probedSocket: Int?
    /// Tells the engine when the device's network changes (Apple platforms only).
    nonisolated let networkWatcher = NetworkWatcher()
    var missedEventCheckTask: Task<Void, Never>?
    /// Pings the current socket every `pingInterval` (SessionEngine+Keepalive).
    var keepaliveTask: Task<Void, Never>?
    /// When the current socket last brought a frame (or was attached).
    private var lastHeard: (socket: Int, at: ContinuousClock.Instant)?
    /// `getSnapshot` requests whose reply replaces the model (an event went missing).
    var resynchronizingRequests: Set<Int> = []
    private var nextRequestID = 1
    private var pending: [Int: Pending] = [:]
    private var connectionWaiters: [CheckedContinuation<Result<Void, SessionError>, Never>] = []
    /// Rooms each recent status change created, by seq: what create-rooms calls return.
    private var createdRooms: [Int: [RoomID]] = [:]
    private let decoder = JSONDecoder()

    init(configuration: CaucusSession.Configuration, hub: EventHub) {
        self.configuration = configuration
        self.hub = hub
    }

    var snapshot: CaucusSession.Snapshot? { model.map { CaucusSession.Snapshot(model: $0, engine: self) } }

    // MARK: - Requests

    /// Sends a request once connected (waiting through a reconnect) and returns the reply.
    @discardableResult
    func perform(_ request: WireRequest) async throws(SessionError) -> ReplyResult {
        try await waitUntilConnected()
        guard let socket else { throw .connectionLost }
        return try await exchange(request, on: socket).get()
    }

    /// Sends a request on `socket` and waits for its reply (or the socket's end, or the bound:
    /// `patience`, else `requestTimeout` in all).
    func exchange(
        _ request: WireRequest, on socket: Socket, resynchronizing: Bool = false, patience: Patience? = nil
    ) async -> Result<ReplyResult, SessionError> {
        let id = nextRequestID
        nextRequestID += 1
        if resynchronizing { resynchronizingRequests.insert(id) }
        let text: String
        do throws(SessionError) {
            text = try request.frame(id: id)
        } catch {
            return .failure(error)
        }
        let patience = patience ?? .total(configuration.requestTimeout)
        return await withCheckedContinuation { continuation in
            let timeout = Task { [weak self] in
                var wait = patience.duration
                while true {
                    try? await Task.sleep(for: wait)
                    guard !Task.isCancelled, let self, let more = await self.stillWaiting(id, patience) else { return }
                    wait = more
                }
            }
            pending[id] = Pending(socket: socket.id, sent: .now, continuation: continuation, timeout: timeout)
            socket.send(text)
        }
    }

    /// The bound of request `id` came: times it out, or (patience `quiet`, and its socket
    /// heard from meanwhile) says how much longer it may wait.
    private func stillWaiting(_ id: Int, _ patience: Patience) -> Duration? {
        guard let request = pending[id] else { return nil }
        if case .quiet(let limit) = patience {
            var heard = request.sent
            if let lastHeard, lastHeard.socket == request.socket { heard = max(heard, lastHeard.at) }
            let quiet = ContinuousClock.now - heard
            if quiet < limit { return limit - quiet }
        }
        complete(id, .failure(.timedOut))
        return nil
    }

    private func complete(_ id: Int, _ result: Result<ReplyResult, SessionError>) {
        resynchronizingRequests.remove(id)
        guard let request = pending.removeValue(forKey: id) else { return }
        request.timeout.cancel()
        request.continuation.resume(returning: result)
    }

    /// Fails the requests waiting on a socket (all of them if nil): their replies will not come.
    func failPending(on socket: Int? = nil) {
        for (id, request) in pending where socket == nil || request.socket == socket {
            complete(id, .failure(.connectionLost))
        }
    }

    func waitUntilConnected() async throws(SessionError) {
        switch phase {
        case .connected:
            return
        case .joining, .reconnecting:
            try await withCheckedContinuation { connectionWaiters.append($0) }.get()
        case .idle, .leaving, .closed:
            throw .notJoined
        }
    }

    func releaseWaiters(_ result: Result<Void, SessionError>) {
        let waiters = connectionWaiters
        connectionWaiters.removeAll()
        for waiter in waiters { waiter.resume(returning: result) }
    }

    func setConnection(_ state: ConnectionState) {
        if published.publish(state) { hub.emit(.connectionStateChanged(state)) }
    }

    // MARK: - Reading

    /// Makes `socket` the current one and starts reading it.
    func attach(_ socket: Socket) {
        self.socket = socket
        lastHeard = (socket.id, .now)
        Task {
            for await item in socket.inbound {
                switch item {
                case .text(let text): self.receive(text, from: socket.id)
                case .closed(let code, _): self.socketClosed(socket.id, code: code)
                }
            }
        }
    }

    private func receive(_ text: String, from socketID: Int) {
        guard socketID == socket?.id else { return }
        lastHeard = (socketID, .now)
        let frame: ServerFrame
        do {
            frame = try decoder.decode(ServerFrame.self, from: Data(text.utf8))
        } catch {
            hub.emit(.error(.invalidResponse("\(error)")))
            return
        }
        switch frame {
        case .reply(let re, let result):
            // Replaced here, before the next frame is read: every event the snapshot includes
            // came before it, and every later one comes after.
            if resynchronizingRequests.contains(re), case .snapshot(let fresh) = result { resynchronize(to: fresh) }
            complete(re, .success(result))
        case .error(let re, let body):
            if let re, pending[re] != nil {
                complete(re, .failure(.refused(ServerError(body))))
            } else {
                hub.emit(.error(.refused(ServerError(body))))
            }
        case .event(let event):
            take(event)
        case .unknownEvent(let seq, _, _):
            // A newer server's event: nothing to apply or tell, but it was seen.
            model?.skip(past: seq)
        case .mediaSlots(let slots, let unplayable, let speakers):
            // Not an event: who fills this user's receive slots, for its media peer.
            mediaSlots.receive(slots, unplayable: unplayable, activeSpeakers: speakers)
        }
    }

    /// Applies one event, publishes the new snapshot, then delivers the event.
    private func take(_ event: SequencedEvent) {
        guard var current = model else { return }
        guard let (before, after) = current.absorb(event) else { return }
        if case .statusChanged = event.event { rememberCreatedRooms(before: before, after: after, seq: event.seq) }
        let events = describe((before, after), in: current).translate(event.event)
        model = current
        hub.emit(events)
        afterEffects(of: event.event)
    }

    private func describe(_ states: (before: SessionState, after: SessionState), in model: LocalModel) -> EventTranslator {
        EventTranslator(me: model.me, before: states.before, after: states.after, model: model, engine: self)
    }

    /// What an event means for the connection: the end of the session. (A larger role needs
    /// nothing here: the server follows the change with a `roleView` of what it sees.)
    private func afterEffects(of event: Event) {
        guard let me = model?.me else { return }
        switch event {
        case .sessionEnded(let reason):
            endReason = .sessionEnded(reason)
            if phase != .leaving { finish(.sessionEnded(reason)) }
        case .userLeft(me, .removed, _):
            endReason = .removed
            if phase != .leaving { finish(.removed) }
        default:
            break
        }
    }

    // MARK: - Created rooms

    private func rememberCreatedRooms(before: SessionState, after: SessionState, seq: Int) {
        let old = Set(before.rooms.map(\.id))
        createdRooms[seq] = after.rooms.map(\.id).filter { !old.contains($0) }
        if createdRooms.count > 32, let oldest = createdRooms.keys.min() { createdRooms[oldest] = nil }
    }

    /// Creates rooms and returns them. A command's events are numbered together and reach
    /// this client before its reply, so the last status change up to the reply's seq is the
    /// one that created them (any later events of the same command are invitations).
    func createRooms(_ request: WireRequest) async throws(SessionError) -> [SubsessionKit] {
        guard case .done(let seq?) = try await perform(request),
            let change = createdRooms.keys.filter({ $0 <= seq }).max(), let ids = createdRooms[change], let model
        else { return [] }
        return ids.compactMap { model.state.kit($0, engine: self) }
    }

    /// The rooms of a committed list the server sent, with users as this client knows them.
    func kits(for breakout: BreakoutSnapshot) -> [SubsessionKit] {
        guard var scratch = model?.state else { return [] }
        scratch.apply(.statusChanged(breakout))
        return scratch.kits(engine: self)
    }
}

extension SessionEngine.Patience {
    var duration: Duration {
        switch self {
        case .total(let limit), .quiet(let limit): limit
        }
    }
}
