import CaucusCore
import CaucusProtocol

/// Leaving, and the end of the session for this user.
extension SessionMachine {
    /// Leaves; a host may end the session for everyone. Completes once the server has let go,
    /// or at once while the connection is down: the session is over for this user there and
    /// then (`sessionLeft(.left)`), and the server hears of it when the connection returns
    /// within its grace (a `Farewell`), else when the seat expires.
    mutating func leave(endSession: Bool, ticket: Ticket, at now: Instant) -> [Action] {
        beginLeaving(endSession: endSession, ticket: ticket, at: now)
        return flush()
    }

    mutating func beginLeaving(endSession: Bool, ticket: Ticket, at now: Instant) {
        switch phase {
        case .joining:
            deferred.append(.leave(endSession: endSession, ticket))
        case .reconnecting(let reconnecting):
            leaveOffline(endSession: endSession, dropped: reconnecting.dropped, at: now)
            complete(ticket, .done(.success(())))
        case .connected(let socket):
            phase = .leaving(Leaving(socket: socket))
            // Bounded by silence, as the keepalive is: on a connection that died without a
            // word, leaving must not wait out `requestTimeout`.
            send(
                .leave(endSession: endSession), on: socket, for: .leave(ticket, endSession: endSession),
                patience: .quiet(settings.connectTimeout), at: now)
        case .idle, .leaving, .closed:
            complete(ticket, .done(.failure(.notJoined)))
        }
    }

    mutating func leaveAnswered(
        _ result: Result<ReplyResult, SessionError>, on socket: SocketID, ticket: Ticket, endSession: Bool, at now: Instant
    ) {
        guard case .leaving = phase else {
            // The session ended meanwhile (`sessionLeft` told why): nothing left to leave.
            complete(ticket, .done(.success(())))
            return
        }
        switch result {
        case .success, .failure(.connectionLost):
            // Ending the session closes every connection before the reply can be sent.
            finish(knownEnd ?? .left, at: now)
            complete(ticket, .done(.success(())))
        case .failure(.timedOut):
            // Dead, as far as anyone can tell: leave as if offline.
            emit(.abandon(socket))
            leaveOffline(endSession: endSession, dropped: now, closing: false, at: now)
            complete(ticket, .done(.success(())))
        case .failure(let error):
            phase = .connected(socket)
            emit(.schedule(.keepalive(socket), at: now + settings.pingInterval))
            complete(ticket, .done(.failure(error)))
        }
    }

    /// Leaves without the server: over for this user now, and a `Farewell` tells the server
    /// if the connection comes back while the seat is held.
    private mutating func leaveOffline(endSession: Bool, dropped: Instant, closing: Bool = true, at now: Instant) {
        if let seat {
            emit(
                .farewell(
                    FarewellPlan(
                        url: url, secret: seat.secret, lastSeq: seat.model.seq, endSession: endSession, schedule: freshSchedule(),
                        dropped: dropped)))
        }
        finish(.left, closing: closing, at: now)
    }

    /// The session is over for this user. Its socket is closed unless it is already gone
    /// (`closing` false).
    mutating func finish(_ reason: SessionLeftReason, closing: Bool = true, at now: Instant) {
        switch phase {
        case .closed, .idle: return
        case .joining, .connected, .reconnecting, .leaving: break
        }
        stopEverything(closing: closing, at: now)
        // The session is over for this user: a snapshot kept now would still place them in
        // their room and hand out room and manager handles whose every call fails. No snapshot
        // says "not in a session", and it is gone before `sessionLeft` is delivered.
        setSeat(nil)
        setConnection(.disconnected)
        deliver(.sessionLeft(reason))
    }

    /// The session object is gone: drop the connection (the server holds the seat for its
    /// grace, then lets it go) and end the event streams.
    mutating func shutdown(at now: Instant) -> [Action] {
        switch phase {
        case .joining:
            joinFailed(.connectionLost, at: now)
            phase = .closed
        case .connected, .reconnecting, .leaving:
            stopEverything(closing: true, at: now)
        case .idle, .closed:
            break
        }
        emit(.watchNetwork(false))
        emit(.endEvents)
        return flush()
    }

    private mutating func stopEverything(closing: Bool, at now: Instant) {
        let socket = currentSocket
        let stage = reconnectStage
        phase = .closed
        emit(.media(.ended))
        switch stage {
        case .waiting(let attempt): emit(.cancelTimer(.reconnect(attempt: attempt)))
        case .opening(let attempt, _, _): emit(.cancelOpening(attempt: attempt))
        case .resuming, .confirming, nil: break
        }
        if let socket {
            emit(.cancelTimer(.keepalive(socket)))
            if closing { emit(.close(socket)) }
        }
        emit(.cancelTimer(.missedEventCheck))
        emit(.watchNetwork(false))
        failPending(at: now)
        if let probe {
            self.probe = nil
            for waiter in probe.waiters { complete(waiter, .done(.success(()))) }
        }
        failDeferred()
    }
}
