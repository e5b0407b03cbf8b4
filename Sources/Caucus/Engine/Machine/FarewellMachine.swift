import CaucusCore
import CaucusProtocol

/// What a `leave()` made while the connection is down leaves behind, as a pure state machine.
/// The app was told at once; the server is told when it can be: while its grace holds the
/// seat, this tries, on the reconnect schedule, to resume the seat and leave it, so that the
/// others hear "left" rather than "timed out". Each try sends the resume and the leave
/// together (the server reads the leave once the resume and its replay are done), then waits
/// for the leave's answer or the server's close for as long as the socket keeps bringing
/// frames, and at most `connectTimeout` without one. A redirect is followed; a refused resume
/// (the seat is gone already) or the deadline ends it. Like `SessionMachine`, it performs
/// nothing: `Farewell` carries out its actions.
struct FarewellMachine: Sendable {
    typealias SocketID = Int
    typealias Instant = ContinuousClock.Instant

    enum Timer: Hashable, Sendable {
        case backoff(attempt: Int)
        /// The check that `socket` is still bringing frames.
        case silence(SocketID)
    }

    enum Action: Equatable, Sendable {
        case open(url: String, attempt: Int)
        case send(SocketID, String)
        case close(SocketID)
        case abandon(SocketID)
        case schedule(Timer, at: Instant)
        case log(String)
        /// Nothing is left to do.
        case finished
    }

    enum Stage: Equatable, Sendable {
        case waiting(attempt: Int)
        case opening(attempt: Int)
        case talking(SocketID, heard: Instant)
        case finished
    }

    static let resumeID = 1
    static let leaveID = 2

    let secret: String
    let lastSeq: Int
    let endSession: Bool
    let connectTimeout: Duration
    /// When the connection was lost, from which the schedule's deadline counts.
    let dropped: Instant
    private(set) var url: String
    private(set) var stage = Stage.waiting(attempt: 0)
    private var schedule: ReconnectSchedule
    private var random: MachineRandom
    private var nextAttempt = 1

    init(plan: SessionMachine.FarewellPlan, connectTimeout: Duration, seed: UInt64) {
        url = plan.url
        secret = plan.secret
        lastSeq = plan.lastSeq
        endSession = plan.endSession
        schedule = plan.schedule
        dropped = plan.dropped
        self.connectTimeout = connectTimeout
        random = MachineRandom(seed: seed)
    }

    mutating func start(at now: Instant) -> [Action] { nextStep(at: now) }

    mutating func timerFired(_ timer: Timer, at now: Instant) -> [Action] {
        switch timer {
        case .backoff(let attempt):
            guard stage == .waiting(attempt: attempt) else { return [] }
            return open()
        case .silence(let socket):
            guard case .talking(socket, let heard) = stage else { return [] }
            guard now - heard >= connectTimeout else { return [.schedule(.silence(socket), at: heard + connectTimeout)] }
            // Dead, as far as anyone can tell: no closing handshake on a dead path.
            return [.abandon(socket)] + nextStep(at: now)
        }
    }

    mutating func socketOpened(_ socket: SocketID, attempt: Int, at now: Instant) -> [Action] {
        guard stage == .opening(attempt: attempt) else { return [.close(socket)] }
        guard let resume = try? WireRequest.resume(secret: secret, lastSeq: lastSeq).frame(id: Self.resumeID),
            let leave = try? WireRequest.leave(endSession: endSession).frame(id: Self.leaveID)
        else {
            stage = .finished
            return [.close(socket), .finished]
        }
        stage = .talking(socket, heard: now)
        return [.send(socket, resume), .send(socket, leave), .schedule(.silence(socket), at: now + connectTimeout)]
    }

    mutating func socketFailed(attempt: Int, at now: Instant) -> [Action] {
        guard stage == .opening(attempt: attempt) else { return [] }
        return nextStep(at: now)
    }

    /// A frame arrived (`frame` nil: one that could not be read, which still shows the socket alive).
    mutating func received(_ frame: ServerFrame?, on socket: SocketID, at now: Instant) -> [Action] {
        guard case .talking(socket, _) = stage else { return [] }
        stage = .talking(socket, heard: now)
        switch frame {
        case .reply(re: Self.leaveID, _), .error(re: .some(Self.leaveID), _):
            stage = .finished
            return [.close(socket), .finished]
        case .error(re: .some(Self.resumeID), let body):
            let error = ServerError(body)
            if error.errorCode == .otherNode, let next = error.nodeURL?.absoluteString {
                url = next
                return [.close(socket)] + nextStep(at: now)
            }
            // Refused for good (`resumeRefused`: the seat is gone already), or for a reason
            // another try will not change.
            stage = .finished
            return [.close(socket), .finished]
        default:
            return []
        }
    }

    mutating func socketClosed(_ socket: SocketID, code: UInt16?, at now: Instant) -> [Action] {
        guard case .talking(socket, _) = stage else { return [] }
        // Left (4005), ended (4002), removed (4003), or another connection took the seat (4004).
        if let code, (4002...4005).contains(code) {
            stage = .finished
            return [.finished]
        }
        return nextStep(at: now)
    }

    private mutating func nextStep(at now: Instant) -> [Action] {
        switch schedule.next(elapsed: now - dropped, random: random.nextUnit()) {
        case .giveUp:
            stage = .finished
            return [.log("could not tell the server about the leave; its grace lets the seat go"), .finished]
        case .attempt(let delay) where delay > .zero:
            let attempt = takeAttempt()
            stage = .waiting(attempt: attempt)
            return [.schedule(.backoff(attempt: attempt), at: now + delay)]
        case .attempt:
            return open()
        }
    }

    private mutating func open() -> [Action] {
        let attempt = takeAttempt()
        stage = .opening(attempt: attempt)
        return [.open(url: url, attempt: attempt)]
    }

    private mutating func takeAttempt() -> Int {
        defer { nextAttempt += 1 }
        return nextAttempt
    }
}
