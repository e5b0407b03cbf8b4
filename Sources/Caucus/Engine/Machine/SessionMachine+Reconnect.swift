import CaucusCore
import CaucusProtocol

/// Reconnecting: a dropped connection comes back on a new socket, resumes the same seat with
/// the secret from the join and the last event seen, and gets every missed event in order; a
/// ping after the resume reply marks the end of the replay. Attempts follow a
/// `ReconnectSchedule` counted from the drop, each on the serving node (redirects followed),
/// else the next entry URL.
extension SessionMachine {
    /// Which step of reconnecting is under way, if reconnecting.
    var reconnectStage: Reconnecting.Stage? {
        guard case .reconnecting(let reconnecting) = phase else { return nil }
        return reconnecting.stage
    }

    mutating func beginReconnect(at now: Instant) {
        if case .connected(let socket) = phase { emit(.cancelTimer(.keepalive(socket))) }
        phase = .reconnecting(Reconnecting(dropped: now, schedule: freshSchedule(), stage: .waiting(attempt: 0)))
        setConnection(.reconnecting)
        nextReconnectStep(at: now)
    }

    /// A fresh schedule of attempts to reach the seat again. The server holds the seat for
    /// its grace (the limits it sent); past it, a resume can only be refused. Attempts stop a
    /// margin later, for the time the server took to notice.
    func freshSchedule() -> ReconnectSchedule {
        let grace = model?.state.limits.reconnectGraceSeconds ?? 30
        return ReconnectSchedule(delays: settings.reconnectDelay, deadline: .seconds(grace) + settings.reconnectExtraTime)
    }

    /// The schedule's next step: an attempt (now or after a backoff), or giving up.
    mutating func nextReconnectStep(at now: Instant) {
        guard case .reconnecting(var reconnecting) = phase else { return }
        switch reconnecting.schedule.next(elapsed: now - reconnecting.dropped, random: random.nextUnit()) {
        case .giveUp:
            deliver(.error(.connectionFailed("The server stayed unreachable past the reconnect grace.")))
            finish(.connectionLost, at: now)
        case .attempt(let delay) where delay > .zero:
            let attempt = newAttempt()
            reconnecting.stage = .waiting(attempt: attempt)
            phase = .reconnecting(reconnecting)
            emit(.schedule(.reconnect(attempt: attempt), at: now + delay))
        case .attempt:
            phase = .reconnecting(reconnecting)
            openAttempt(at: now)
        }
    }

    mutating func backoffEnded(_ attempt: Int, at now: Instant) {
        guard reconnectStage == .waiting(attempt: attempt) else { return }
        openAttempt(at: now)
    }

    private mutating func openAttempt(at now: Instant) {
        guard case .reconnecting(var reconnecting) = phase else { return }
        guard seat != nil else {
            finish(.connectionLost, at: now)
            return
        }
        let attempt = newAttempt()
        reconnecting.stage = .opening(attempt: attempt, url: url, redirects: 0)
        phase = .reconnecting(reconnecting)
        emit(.open(url: url, attempt: attempt))
    }

    mutating func resumeAnswered(_ result: Result<ReplyResult, SessionError>, on socket: SocketID, at now: Instant) {
        guard case .reconnecting(var reconnecting) = phase, case .resuming(socket, let redirects) = reconnecting.stage else { return }
        if let next = Self.redirect(result), redirects < Self.redirectLimit {
            // Several nodes: another node serves the session (or took it over); resume there.
            let attempt = newAttempt()
            reconnecting.stage = .opening(attempt: attempt, url: next, redirects: redirects + 1)
            phase = .reconnecting(reconnecting)
            emit(.close(socket))
            emit(.open(url: next, attempt: attempt))
            return
        }
        switch result {
        case .success(.resumed(_, _, let fresh, _, let mediaKept)):
            if let fresh {
                // Too long away to replay: a fresh snapshot instead of the missed events.
                updateModel { $0.reset(to: fresh) }
                if let model { deliver(.resynchronized(model)) }
            }
            reconnecting.stage = .confirming(socket, mediaKept: mediaKept)
            phase = .reconnecting(reconnecting)
            // The server sends the missed events right after the resume reply, before it
            // reads the next request: once this ping is answered, all of them have arrived.
            send(WireRequest(.ping), on: socket, for: .confirmResume, patience: .quiet(settings.connectTimeout), at: now)
        case .failure(.refused(let error)) where error.errorCode == .resumeRefused:
            deliver(.error(.refused(error)))
            finish(.connectionLost, at: now)
        case .failure(.refused(let error)) where error.errorCode == .internalError:
            // Up, but unable to decide now (its store unreachable): the seat outlives that.
            reconnecting.schedule.serverCannotDecideYet(elapsed: now - reconnecting.dropped, window: freshSchedule().deadline)
            phase = .reconnecting(reconnecting)
            dropAttempt(socket, at: now)
            nextReconnectStep(at: now)
        default:
            dropAttempt(socket, at: now)
            nextReconnectStep(at: now)
        }
    }

    mutating func resumeConfirmed(_ result: Result<ReplyResult, SessionError>, on socket: SocketID, at now: Instant) {
        guard case .confirming(socket, let mediaKept)? = reconnectStage else { return }
        guard case .success = result else {
            dropAttempt(socket, at: now)
            nextReconnectStep(at: now)
            return
        }
        phase = .connected(socket)
        emit(.schedule(.keepalive(socket), at: now + settings.pingInterval))
        setConnection(.connected)
        emit(.media(.resumed(mediaKept: mediaKept)))
        sendDeferred(at: now)
    }

    /// Gives up an attempt's socket. Abandoned, not closed: it may be dead (a closing
    /// handshake would wait for an answer that never comes).
    private mutating func dropAttempt(_ socket: SocketID, at now: Instant) {
        guard case .reconnecting(var reconnecting) = phase else { return }
        // No attempt (0 is never one) until the caller's next step: the requests still
        // waiting on the socket fail into a stage that is no longer theirs.
        reconnecting.stage = .waiting(attempt: 0)
        phase = .reconnecting(reconnecting)
        emit(.abandon(socket))
        failPending(on: socket, at: now)
    }

    // MARK: - Network changes

    /// The network changed (a path back or on another interface, the app back in the
    /// foreground). Connected: a ping bounded by `connectTimeout` checks the socket, and one
    /// that does not answer is given up and the seat resumed at once. Reconnecting: the
    /// attempt under way is given up and a new one made now. `ticket` is completed once the
    /// check is done (at once when there is nothing to check, or a check is under way).
    mutating func networkChanged(ticket: Ticket, at now: Instant) -> [Action] {
        switch phase {
        case .connected(let socket):
            startProbe(of: socket, after: "no answer after a network change", waiter: ticket, at: now)
        case .reconnecting:
            reconnectNow(at: now)
            complete(ticket, .done(.success(())))
        case .idle, .joining, .leaving, .closed:
            complete(ticket, .done(.success(())))
        }
        return flush()
    }

    /// Cuts the wait short: the attempt under way (waiting out its backoff, opening on what
    /// may have been the old path, or resuming on a socket that may have died with it) is
    /// given up, and a new schedule begins with an attempt at once, its deadline still
    /// counted from the drop.
    private mutating func reconnectNow(at now: Instant) {
        guard case .reconnecting(var reconnecting) = phase else { return }
        let given = reconnecting.stage
        // No attempt (0 is never one) until `nextReconnectStep` below.
        reconnecting.stage = .waiting(attempt: 0)
        reconnecting.schedule = freshSchedule()
        phase = .reconnecting(reconnecting)
        switch given {
        case .waiting(let attempt): emit(.cancelTimer(.reconnect(attempt: attempt)))
        case .opening(let attempt, _, _): emit(.cancelOpening(attempt: attempt))
        case .resuming(let socket, _), .confirming(let socket, _):
            emit(.abandon(socket))
            failPending(on: socket, at: now)
        }
        nextReconnectStep(at: now)
    }

    // MARK: - Keepalive

    /// While connected, a `ping` every `pingInterval`, which must answer within
    /// `connectTimeout` of silence: a connection that went silently dead is given up and the
    /// seat resumed on a new one, well inside the server's grace.
    mutating func keepalive(_ socket: SocketID, at now: Instant) {
        guard case .connected(socket) = phase else { return }
        emit(.schedule(.keepalive(socket), at: now + settings.pingInterval))
        startProbe(of: socket, after: "no answer to the keepalive ping", waiter: nil, at: now)
    }

    /// Pings `socket`, bounded by `connectTimeout` of silence. At most one probe per socket at
    /// a time: a path monitor reports changes in bursts, and a keepalive may coincide with
    /// one; a probe already under way answers for both.
    private mutating func startProbe(of socket: SocketID, after reason: String, waiter: Ticket?, at now: Instant) {
        if probe?.socket == socket {
            if let waiter { complete(waiter, .done(.success(()))) }
            return
        }
        probe = Probe(socket: socket, reason: reason, waiters: waiter.map { [$0] } ?? [])
        send(WireRequest(.ping), on: socket, for: .probe, patience: .quiet(settings.connectTimeout), at: now)
    }

    mutating func probeAnswered(_ result: Result<ReplyResult, SessionError>, on socket: SocketID, at now: Instant) {
        guard let probe, probe.socket == socket else { return }
        self.probe = nil
        if case .failure = result, case .connected(socket) = phase {
            emit(.log(.info, "\(probe.reason) on the connection; reconnecting"))
            beginReconnect(at: now)
            // Not closed: a closing handshake would wait for an answer a dead path never brings.
            emit(.abandon(socket))
            failPending(on: socket, at: now)
        }
        for waiter in probe.waiters { complete(waiter, .done(.success(()))) }
    }

    // MARK: - The socket's end

    /// The socket ended. An unexpected end (a drop, a restart, being too slow) starts a
    /// reconnect; the server's own ends (session ended, removed, replaced, left) are final.
    mutating func socketClosed(_ socket: SocketID, code: UInt16?, at now: Instant) -> [Action] {
        guard socket == currentSocket else { return [] }
        switch phase {
        case .connected:
            switch code {
            case 4002: finish(knownEnd ?? .sessionEnded(.endedByServer), closing: false, at: now)
            case 4003: finish(.removed, closing: false, at: now)
            case 4004: finish(.replaced, closing: false, at: now)
            case 4005: finish(knownEnd ?? .left, closing: false, at: now)
            default:
                beginReconnect(at: now)
                failPending(on: socket, at: now)
            }
        case .joining(let joining):
            if retryCrowdedJoin(closed: socket, code: code, at: now) { break }
            if case .askingPassword = joining.stage {
                joinFailed(.connectionLost, at: now)
            } else {
                failPending(on: socket, at: now)
            }
        case .reconnecting, .leaving:
            // The resume, its ping, or the leave fails: its answer decides.
            failPending(on: socket, at: now)
        case .idle, .closed:
            break
        }
        return flush()
    }
}
