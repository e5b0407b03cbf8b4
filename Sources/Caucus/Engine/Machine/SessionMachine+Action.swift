import CaucusCore
import CaucusProtocol
import Logging

extension SessionMachine {
    /// An app call waiting for the machine's answer, as the shell names it.
    struct Ticket: Hashable, Sendable {
        let number: Int
    }

    /// Something that happens later unless cancelled: the shell calls `timerFired` at its time.
    enum Timer: Hashable, Sendable {
        /// Request `id`'s bound.
        case request(Int)
        /// The next keepalive ping on this socket.
        case keepalive(SocketID)
        case missedEventCheck
        /// The end of the backoff before reconnect `attempt`.
        case reconnect(attempt: Int)
        /// The end of the delay before a first join tries again after a 4009 (`attempt`).
        case joinRetry(attempt: Int)
    }

    /// What the shell must do, in the order given.
    enum Action: Sendable {
        /// Open a WebSocket to `url`, then report `socketOpened` or `socketFailed` for `attempt`.
        case open(url: String, attempt: Int)
        /// Give up opening `attempt` (its report, if it still comes, is ignored).
        case cancelOpening(attempt: Int)
        case send(SocketID, Outgoing)
        /// Close normally once what is queued is sent.
        case close(SocketID)
        /// Drop without a closing handshake: the path may be dead.
        case abandon(SocketID)
        /// Call `timerFired(timer)` at `at` (replacing the same timer if it is set).
        case schedule(Timer, at: Instant)
        case cancelTimer(Timer)
        /// What `session.snapshot` reads from now on (nil: not in a session); before the
        /// events it explains.
        case publish(LocalModel?)
        /// The connection state changed: publish it and tell the app.
        case connection(ConnectionState)
        /// Tell the app, in order.
        case deliver([Notice])
        /// Resume the app call waiting on `ticket`.
        case complete(Ticket, Completion)
        /// Ask the app's password hook, then report `passwordAnswered` for `ticket`.
        case askPassword(PasswordPrompt, for: Ticket)
        /// Tell the server of a leave made offline, on sockets of its own (`Farewell`).
        case farewell(FarewellPlan)
        case media(MediaNotice)
        /// Start (true) or stop watching the device's network for changes.
        case watchNetwork(Bool)
        case log(Logger.Level, String)
        /// The session object is gone: end the app's event streams.
        case endEvents
    }

    /// A request frame on its way.
    struct Outgoing: Sendable {
        let id: Int
        let request: WireRequest
        let text: String
    }

    /// What the app hears, before the shell turns it into `SessionEvent`s (which hold handles
    /// on the engine).
    enum Notice: Sendable {
        /// A server event, described by the states before and after it.
        case event(SequencedEvent, before: SessionState, after: SessionState, model: LocalModel)
        case joined(LocalModel)
        case resynchronized(LocalModel)
        case sessionLeft(SessionLeftReason)
        case error(SessionError)
        case password(PasswordPrompt)
    }

    /// How an app call ends.
    enum Completion: Sendable {
        case joined(Result<LocalModel, SessionError>)
        case reply(Result<ReplyResult, SessionError>)
        case done(Result<Void, SessionError>)
    }

    /// For the session's media peer (`MediaSlotRelay`).
    enum MediaNotice: Sendable, Equatable {
        /// A slot map frame, after the events that came before it.
        case slots([MediaSlot], unplayable: [UnplayableMedia], activeSpeakers: [UserID]?)
        /// Joined (the first time, or again after a leave): media starts afresh.
        case joined
        /// Resumed on a new connection: make the peer again, unless the server kept it
        /// (`mediaKept`: it still has the peer, which carried the media meanwhile).
        case resumed(mediaKept: Bool)
        /// The session is over for this user: its media goes too.
        case ended
    }

    /// What a `Farewell` needs.
    struct FarewellPlan: Sendable {
        let url: String
        let secret: String
        let lastSeq: Int
        let endSession: Bool
        let schedule: ReconnectSchedule
        let dropped: Instant
    }
}
