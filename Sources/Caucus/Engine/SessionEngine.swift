import CaucusCore
import CaucusProtocol
import Foundation

/// The shell around the session's `SessionMachine`: it feeds the machine the app's calls,
/// the sockets' frames and ends, and the timers, each with the time, and carries out the
/// actions it returns (opening and reading sockets, sleeping, publishing, delivering events,
/// resuming the app's calls). It decides nothing itself. Each socket has one reader task
/// that hands it frames in order; handling a frame never suspends, so an event is applied,
/// published and delivered before the next frame is looked at.
actor SessionEngine {
    typealias Machine = SessionMachine
    typealias PasswordSource = @Sendable (PasswordPrompt) async -> String?

    nonisolated let configuration: CaucusSession.Configuration
    nonisolated let hub: EventHub
    nonisolated let published = PublishedState()
    /// The server's slot maps, on their way to this user's media peer (Media/).
    nonisolated let mediaSlots = MediaSlotRelay()
    /// Tells the engine when the device's network changes (Apple platforms only).
    nonisolated let networkWatcher = NetworkWatcher()

    var machine: Machine
    var sockets: [Machine.SocketID: Socket] = [:]
    var openings: [Int: Task<Void, Never>] = [:]
    /// Each timer's sleeping task, and the number it was set under (a task that wakes after
    /// its timer was set again is not the timer any more).
    var timers: [Machine.Timer: (number: Int, task: Task<Void, Never>)] = [:]
    var nextTimerNumber = 0
    var waiting: [Machine.Ticket: CheckedContinuation<Machine.Completion, Never>] = [:]
    var passwordSources: [Machine.Ticket: PasswordSource] = [:]
    private var nextTicket = 0
    let decoder = JSONDecoder()

    init(configuration: CaucusSession.Configuration, hub: EventHub) {
        self.configuration = configuration
        self.hub = hub
        let settings = Machine.Settings(
            requestTimeout: configuration.requestTimeout, connectTimeout: configuration.connectTimeout,
            pingInterval: configuration.pingInterval, missedEventCheckInterval: configuration.missedEventCheckInterval,
            reconnectDelay: configuration.reconnectDelay, reconnectExtraTime: configuration.reconnectExtraTime,
            nodeURLs: configuration.nodeURLs.map(\.absoluteString))
        machine = Machine(settings: settings, seed: .random(in: 0...UInt64.max))
    }

    var snapshot: CaucusSession.Snapshot? { machine.model.map { CaucusSession.Snapshot(model: $0, engine: self) } }

    /// Hands the machine an input that completes a ticket, and waits for the completion.
    private func call(_ input: (inout Machine, Machine.Ticket) -> [Machine.Action]) async -> Machine.Completion {
        await withCheckedContinuation { continuation in
            nextTicket += 1
            let ticket = Machine.Ticket(number: nextTicket)
            waiting[ticket] = continuation
            perform(input(&machine, ticket))
        }
    }

    // MARK: - The app's calls

    /// Connects and joins. On need-password or password-wrong, asks `askPassword` for another
    /// and retries on the same connection; gives up when it answers nil.
    func join(
        url: String, sessionName: String, userName: String, token: String, password: String?, askPassword: @escaping PasswordSource
    ) async throws(SessionError) -> CaucusSession.Snapshot {
        let credentials = Machine.Credentials(url: url, session: sessionName, userName: userName, token: token)
        let completion = await call { machine, ticket in
            passwordSources[ticket] = askPassword
            return machine.join(credentials, password: password, ticket: ticket, at: .now)
        }
        guard case .joined(let result) = completion else { throw .invalidResponse("join completed as \(completion)") }
        return CaucusSession.Snapshot(model: try result.get(), engine: self)
    }

    /// Sends a request once connected (waiting through a reconnect) and returns the reply.
    @discardableResult
    func perform(_ request: WireRequest) async throws(SessionError) -> ReplyResult {
        let completion = await call { machine, ticket in machine.request(request, ticket: ticket, at: .now) }
        guard case .reply(let result) = completion else { throw .invalidResponse("a request completed as \(completion)") }
        return try result.get()
    }

    func leave(endSession: Bool) async throws(SessionError) {
        let completion = await call { machine, ticket in machine.leave(endSession: endSession, ticket: ticket, at: .now) }
        guard case .done(let result) = completion else { throw .invalidResponse("leave completed as \(completion)") }
        try result.get()
    }

    /// Returns once the check is done: the socket answered, or the reconnect has begun.
    func networkChanged() async {
        _ = await call { machine, ticket in machine.networkChanged(ticket: ticket, at: .now) }
    }

    /// The session object is gone.
    func shutdown() {
        perform(machine.shutdown(at: .now))
    }

    /// Creates rooms and returns them: those of the last status change up to the reply's seq.
    func createRooms(_ request: WireRequest) async throws(SessionError) -> [SubsessionKit] {
        guard case .done(let seq?) = try await perform(request), let ids = machine.createdRooms(upTo: seq), let model = machine.model
        else { return [] }
        return ids.compactMap { model.state.kit($0, engine: self) }
    }

    /// The rooms of a committed list the server sent, with users as this client knows them.
    func kits(for breakout: BreakoutSnapshot) -> [SubsessionKit] {
        guard var scratch = machine.model?.state else { return [] }
        scratch.apply(.statusChanged(breakout))
        return scratch.kits(engine: self)
    }

    // MARK: - Inputs from sockets and timers

    func passwordAnswered(_ password: String?, for ticket: Machine.Ticket) {
        perform(machine.passwordAnswered(password, for: ticket, at: .now))
    }

    func opened(_ result: Result<Socket, SessionError>, attempt: Int) {
        openings[attempt] = nil
        switch result {
        case .success(let socket):
            sockets[socket.id] = socket
            read(socket)
            perform(machine.socketOpened(socket.id, attempt: attempt, at: .now))
        case .failure(let error):
            perform(machine.socketFailed(attempt: attempt, error, at: .now))
        }
    }

    /// Reads `socket` until it ends, handing the machine each frame in order.
    private func read(_ socket: Socket) {
        Task {
            for await item in socket.inbound {
                switch item {
                case .text(let text): self.receive(text, from: socket.id)
                case .closed(let code, _):
                    sockets[socket.id] = nil
                    perform(machine.socketClosed(socket.id, code: code, at: .now))
                }
            }
        }
    }

    private func receive(_ text: String, from socket: Machine.SocketID) {
        let frame: ServerFrame
        do {
            frame = try decoder.decode(ServerFrame.self, from: Data(text.utf8))
        } catch {
            perform(machine.unreadable("\(error)", on: socket, at: .now))
            return
        }
        perform(machine.received(frame, on: socket, at: .now))
    }

    func fire(_ timer: Machine.Timer, number: Int) {
        guard timers[timer]?.number == number else { return }
        timers[timer] = nil
        perform(machine.timerFired(timer, at: .now))
    }

    // MARK: - For tests

    /// What the reconnect loop is doing (nil: not reconnecting).
    struct ReconnectProgress {
        enum Stage { case waiting, opening, resuming }
        let stage: Stage?
    }

    var reconnectProgress: ReconnectProgress {
        switch machine.reconnectStage {
        case .waiting: ReconnectProgress(stage: .waiting)
        case .opening: ReconnectProgress(stage: .opening)
        case .resuming, .confirming: ReconnectProgress(stage: .resuming)
        case nil: ReconnectProgress(stage: nil)
        }
    }
}
