@testable import Caucus
import CaucusCore
import CaucusProtocol
import Foundation

/// Drives a `SessionMachine` as its shell would, with the time, the sockets' numbers and the
/// app's tickets in the test's hands, and reads the actions it returns.
struct SessionMachineDriver {
    typealias Machine = SessionMachine
    typealias Action = Machine.Action

    static let ann = UserID(1)
    static let ben = UserID(2)
    static let cy = UserID(3)
    static let server = "ws://one.example/ws"
    static let otherNode = "ws://two.example/ws"
    static let settings = Machine.Settings(
        requestTimeout: .seconds(30), connectTimeout: .seconds(5), pingInterval: .seconds(15),
        missedEventCheckInterval: .seconds(20), reconnectDelay: .milliseconds(250) ... .seconds(2),
        reconnectExtraTime: .seconds(5), nodeURLs: [])

    var machine = Machine(settings: Self.settings, seed: 7)
    var now = ContinuousClock.now
    private var tickets = 0
    private var sockets = 100

    mutating func ticket() -> Machine.Ticket {
        tickets += 1
        return Machine.Ticket(number: tickets)
    }

    mutating func newSocket() -> Int {
        sockets += 1
        return sockets
    }

    mutating func wait(_ duration: Duration) { now += duration }

    // MARK: - Fixtures

    static func user(_ id: UserID, _ name: String) -> SessionUser {
        SessionUser(id: id, name: name, identity: nil, claim: nil, joinedAt: Instant(seconds: 1))
    }

    /// The session as Ann joins it: Ann (the host) and Ben, three events in.
    static func joinSnapshot() -> SessionSnapshot {
        let started = SessionStarted(
            name: "Class", password: nil, sessionKey: nil, createdAt: Instant(seconds: 0), limits: .standard, settings: .standard)
        let state = SessionState(replaying: [
            .sessionStarted(started), .userJoined(user(ann, "Ann"), becomesHost: true), .userJoined(user(ben, "Ben"), becomesHost: false),
        ])
        return SessionSnapshot(state: state.visible(to: ann), viewer: ann, seq: 3)
    }

    static func chat(_ seq: Int, _ text: String) -> ServerFrame {
        let message = ChatMessage(id: MessageID(seq), from: ben, scope: .room(.main), text: text, sentAt: Instant(seconds: Int64(seq)))
        return .event(SequencedEvent(seq: seq, at: Instant(seconds: Int64(seq)), event: .chatMessage(message)))
    }

    static func refusal(_ code: Caucus.CaucusError.Code, url: String? = nil) -> ErrorBody {
        ErrorBody(code: code.rawValue, name: "\(code)", message: "refused", url: url)
    }

    // MARK: - Steps

    /// Ann joins on `server`: returns the socket and the join's actions from the reply on.
    mutating func joined() -> (socket: Int, actions: [Action]) {
        let ticket = ticket()
        let credentials = Machine.Credentials(url: Self.server, session: "Class", userName: "Ann", token: "jwt")
        let opening = machine.join(credentials, password: nil, ticket: ticket, at: now)
        let attempt = opening.opens[0].attempt
        let socket = newSocket()
        let sent = machine.socketOpened(socket, attempt: attempt, at: now).sent
        let actions = machine.received(
            .reply(re: sent[0].outgoing.id, result: .joined(user: Self.ann, secret: "s3cret", snapshot: Self.joinSnapshot())), on: socket,
            at: now)
        return (socket, actions)
    }

    /// Ann's socket drops; returns the socket of the attempt that opens at once, and the
    /// resume it sent.
    mutating func dropAndReopen(_ socket: Int) -> (socket: Int, resume: Machine.Outgoing, dropped: [Action]) {
        let dropped = machine.socketClosed(socket, code: nil, at: now)
        let reopened = newSocket()
        let resume = machine.socketOpened(reopened, attempt: dropped.opens[0].attempt, at: now).sent[0].outgoing
        return (reopened, resume, dropped)
    }
}

/// Reading a list of actions.
extension [SessionMachine.Action] {
    var opens: [(url: String, attempt: Int)] {
        compactMap { if case .open(let url, let attempt) = $0 { (url, attempt) } else { nil } }
    }

    var sent: [(socket: Int, outgoing: SessionMachine.Outgoing)] {
        compactMap { if case .send(let socket, let outgoing) = $0 { (socket, outgoing) } else { nil } }
    }

    var sentOps: [String] { sent.compactMap(\.outgoing.request.op) }

    var notices: [SessionMachine.Notice] {
        flatMap { action -> [SessionMachine.Notice] in
            guard case .deliver(let notices) = action else { return [] }
            return notices
        }
    }

    var connectionStates: [ConnectionState] {
        compactMap { if case .connection(let state) = $0 { state } else { nil } }
    }

    var completions: [(ticket: SessionMachine.Ticket, completion: SessionMachine.Completion)] {
        compactMap { if case .complete(let ticket, let completion) = $0 { (ticket, completion) } else { nil } }
    }

    var abandoned: [Int] { compactMap { if case .abandon(let socket) = $0 { socket } else { nil } } }

    var closed: [Int] { compactMap { if case .close(let socket) = $0 { socket } else { nil } } }

    var media: [SessionMachine.MediaNotice] { compactMap { if case .media(let notice) = $0 { notice } else { nil } } }

    /// The seq of each model published, nil for "not in a session".
    var publishedSeqs: [Int?] {
        flatMap { action -> [Int?] in
            guard case .publish(let model) = action else { return [] }
            return [model?.seq]
        }
    }

    /// The texts of the chat events delivered.
    var chatTexts: [String] {
        notices.compactMap {
            if case .event(let event, _, _, _) = $0, case .chatMessage(let message) = event.event { message.text } else { nil }
        }
    }

    var sessionLeft: [SessionLeftReason] { notices.compactMap { if case .sessionLeft(let reason) = $0 { reason } else { nil } } }

    func reply(of ticket: SessionMachine.Ticket) -> Result<ReplyResult, SessionError>? {
        for (t, completion) in completions where t == ticket {
            if case .reply(let result) = completion { return result }
        }
        return nil
    }

    func done(_ ticket: SessionMachine.Ticket) -> Result<Void, SessionError>? {
        for (t, completion) in completions where t == ticket {
            if case .done(let result) = completion { return result }
        }
        return nil
    }
}
