import CaucusCore
import CaucusProtocol

/// Joining: the first entry URL that opens (the app's, then `nodeURLs`), a redirect to the
/// node that serves the session, and the password hook asked again on a refusal.
extension SessionMachine {
    mutating func join(_ credentials: Credentials, password: String?, ticket: Ticket, at now: Instant) -> [Action] {
        switch phase {
        case .idle, .closed:
            break
        case .joining, .connected, .reconnecting, .leaving:
            complete(ticket, .joined(.failure(.alreadyJoined)))
            return flush()
        }
        setEntries(credentials.url)
        setSeat(nil)
        clearEndReason()
        setConnection(.connecting)
        let attempt = newAttempt()
        let remaining = Array(entryURLs.dropFirst())
        phase = .joining(
            Joining(ticket: ticket, credentials: credentials, password: password, stage: .opening(attempt: attempt, url: credentials.url, remaining: remaining)))
        emit(.open(url: credentials.url, attempt: attempt))
        return flush()
    }

    mutating func passwordAnswered(_ password: String?, for ticket: Ticket, at now: Instant) -> [Action] {
        guard case .joining(var joining) = phase, joining.ticket == ticket, case .askingPassword(let socket, let refusal) = joining.stage
        else { return [] }
        guard let password else {
            joinFailed(.refused(refusal), at: now)
            return flush()
        }
        joining.password = password
        joining.stage = .joining(socket)
        phase = .joining(joining)
        sendJoin(joining, on: socket, at: now)
        return flush()
    }

    // MARK: - Sockets

    mutating func socketOpened(_ socket: SocketID, attempt: Int, at now: Instant) -> [Action] {
        switch phase {
        case .joining(var joining):
            switch joining.stage {
            case .opening(attempt, let url, _), .moving(attempt, let url):
                serve(from: url)
                heard(socket, at: now)
                joining.stage = .joining(socket)
                phase = .joining(joining)
                sendJoin(joining, on: socket, at: now)
                return flush()
            default:
                break
            }
        case .reconnecting(var reconnecting):
            if case .opening(attempt, let url, let redirects) = reconnecting.stage, let seat {
                serve(from: url)
                heard(socket, at: now)
                reconnecting.stage = .resuming(socket, redirects: redirects)
                phase = .reconnecting(reconnecting)
                // Bounded like opening, not by `requestTimeout`: a path that dies just after
                // the upgrade must cost one short attempt, not the seat. The missed events
                // come after the reply, and the ping after them, so those waits are bounded
                // by silence: a long replay is still awaited.
                let resume = WireRequest.resume(secret: seat.secret, lastSeq: seat.model.seq)
                send(resume, on: socket, for: .resume, patience: .quiet(settings.connectTimeout), at: now)
                return flush()
            }
        case .idle, .connected, .leaving, .closed:
            break
        }
        // An attempt given up meanwhile.
        emit(.close(socket))
        return flush()
    }

    mutating func socketFailed(attempt: Int, _ error: SessionError, at now: Instant) -> [Action] {
        switch phase {
        case .joining(var joining):
            switch joining.stage {
            case .opening(attempt, _, let remaining):
                guard let next = remaining.first else {
                    joinFailed(error, at: now)
                    break
                }
                let retry = newAttempt()
                joining.stage = .opening(attempt: retry, url: next, remaining: Array(remaining.dropFirst()))
                phase = .joining(joining)
                emit(.open(url: next, attempt: retry))
            case .moving(attempt, _):
                joinFailed(error, at: now)
            default:
                break
            }
        case .reconnecting(let reconnecting):
            guard case .opening(attempt, _, _) = reconnecting.stage else { break }
            // Several nodes: the serving node may be gone (or the one a redirect named, whose
            // lease has not expired yet); the next attempt asks another.
            moveToNextEntry()
            nextReconnectStep(at: now)
        case .idle, .connected, .leaving, .closed:
            break
        }
        return flush()
    }

    // MARK: - The join request

    private mutating func sendJoin(_ joining: Joining, on socket: SocketID, at now: Instant) {
        let credentials = joining.credentials
        let request = WireRequest.join(
            session: credentials.session, userName: credentials.userName, token: credentials.token, password: joining.password)
        send(request, on: socket, for: .join, patience: .total(settings.requestTimeout), at: now)
    }

    mutating func joinAnswered(_ result: Result<ReplyResult, SessionError>, on socket: SocketID, at now: Instant) {
        guard case .joining(var joining) = phase, case .joining(socket) = joining.stage else { return }
        if let next = Self.redirect(result), joining.redirects < Self.redirectLimit {
            // Several nodes: another node serves the session; join there.
            joining.redirects += 1
            let attempt = newAttempt()
            joining.stage = .moving(attempt: attempt, url: next)
            phase = .joining(joining)
            emit(.close(socket))
            emit(.open(url: next, attempt: attempt))
            return
        }
        switch result {
        case .success(.joined(_, let secret, let snapshot, _)):
            joined(joining, secret: secret, snapshot: snapshot, on: socket, at: now)
        case .success(let other):
            joinFailed(.invalidResponse("join was answered with \(other)"), at: now)
        case .failure(.refused(let error)) where error.errorCode == .needPassword || error.errorCode == .passwordWrong:
            let prompt: PasswordPrompt = error.errorCode == .needPassword ? .needed : .wrong
            joining.stage = .askingPassword(socket, after: error)
            phase = .joining(joining)
            deliver(.password(prompt))
            emit(.askPassword(prompt, for: joining.ticket))
        case .failure(let error):
            joinFailed(error, at: now)
        }
    }

    private mutating func joined(_ joining: Joining, secret: String, snapshot: SessionSnapshot, on socket: SocketID, at now: Instant) {
        let model = LocalModel(snapshot: snapshot)
        phase = .connected(socket)
        setSeat(Seat(secret: secret, model: model))
        setConnection(.connected)
        emit(.schedule(.keepalive(socket), at: now + settings.pingInterval))
        emit(.schedule(.missedEventCheck, at: now + settings.missedEventCheckInterval))
        emit(.watchNetwork(true))
        // Before the call returns: a media call made after `join` belongs to this join.
        emit(.media(.joined))
        deliver(.joined(model))
        complete(joining.ticket, .joined(.success(model)))
        sendDeferred(at: now)
    }

    /// The join failed: nothing is left open, and the calls kept for it are refused.
    mutating func joinFailed(_ error: SessionError, at now: Instant) {
        guard case .joining(let joining) = phase else { return }
        if let socket = currentSocket { emit(.close(socket)) }
        phase = .idle
        failPending(at: now)
        failDeferred()
        setConnection(.disconnected)
        complete(joining.ticket, .joined(.failure(error)))
    }
}
