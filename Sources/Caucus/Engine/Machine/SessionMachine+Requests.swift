import CaucusCore
import CaucusProtocol

/// Requests: numbered, sent, bounded by a timer, and answered by their reply, their socket's
/// end or their bound. Each answer goes to whoever sent the request (`Purpose`).
extension SessionMachine {
    /// An app call: sent at once when connected, kept until then while joining or
    /// reconnecting, refused otherwise.
    mutating func request(_ request: WireRequest, ticket: Ticket, at now: Instant) -> [Action] {
        submit(request, ticket: ticket, at: now)
        return flush()
    }

    mutating func submit(_ request: WireRequest, ticket: Ticket, at now: Instant) {
        switch phase {
        case .connected(let socket):
            send(request, on: socket, for: .app(ticket), patience: .total(settings.requestTimeout), at: now)
        case .joining, .reconnecting:
            deferred.append(.request(request, ticket))
        case .idle, .leaving, .closed:
            complete(ticket, .reply(.failure(.notJoined)))
        }
    }

    /// Sends `request` on `socket` and sets its bound.
    mutating func send(_ request: WireRequest, on socket: SocketID, for purpose: Purpose, patience: Patience, at now: Instant) {
        let id = takeRequestID()
        let text: String
        do throws(SessionError) {
            text = try request.frame(id: id)
        } catch {
            answer(purpose, on: socket, .failure(error), at: now)
            return
        }
        pending[id] = Pending(socket: socket, sent: now, patience: patience, purpose: purpose)
        emit(.send(socket, Outgoing(id: id, request: request, text: text)))
        emit(.schedule(.request(id), at: now + patience.duration))
    }

    /// Request `id` is answered (or given up).
    mutating func respond(_ id: Int, _ result: Result<ReplyResult, SessionError>, at now: Instant) {
        guard let request = pending.removeValue(forKey: id) else { return }
        emit(.cancelTimer(.request(id)))
        answer(request.purpose, on: request.socket, result, at: now)
    }

    /// The bound of request `id` came: times it out, or (patience `quiet`, and its socket
    /// heard from meanwhile) sets it again from the last frame.
    mutating func requestBoundReached(_ id: Int, at now: Instant) {
        guard let request = pending[id] else { return }
        if case .quiet(let limit) = request.patience {
            var heard = request.sent
            if let lastHeard, lastHeard.socket == request.socket { heard = max(heard, lastHeard.at) }
            if now - heard < limit {
                emit(.schedule(.request(id), at: heard + limit))
                return
            }
        }
        respond(id, .failure(.timedOut), at: now)
    }

    /// Fails the requests waiting on `socket` (all of them if nil): their replies will not come.
    mutating func failPending(on socket: SocketID? = nil, at now: Instant) {
        let ids = pending.filter { socket == nil || $0.value.socket == socket }.keys.sorted()
        for id in ids { respond(id, .failure(.connectionLost), at: now) }
    }

    /// Sends the calls kept while joining or reconnecting, in order.
    mutating func sendDeferred(at now: Instant) {
        let calls = deferred
        deferred = []
        for call in calls {
            switch call {
            case .request(let request, let ticket): submit(request, ticket: ticket, at: now)
            case .leave(let endSession, let ticket): beginLeaving(endSession: endSession, ticket: ticket, at: now)
            }
        }
    }

    mutating func failDeferred() {
        let calls = deferred
        deferred = []
        for call in calls {
            switch call {
            case .request(_, let ticket): complete(ticket, .reply(.failure(.notJoined)))
            case .leave(_, let ticket): complete(ticket, .done(.failure(.notJoined)))
            }
        }
    }

    private mutating func answer(_ purpose: Purpose, on socket: SocketID, _ result: Result<ReplyResult, SessionError>, at now: Instant) {
        switch purpose {
        case .app(let ticket): complete(ticket, .reply(result))
        case .join: joinAnswered(result, on: socket, at: now)
        case .resume: resumeAnswered(result, on: socket, at: now)
        case .confirmResume: resumeConfirmed(result, on: socket, at: now)
        case .probe: probeAnswered(result, on: socket, at: now)
        case .missedEventCheck(let asked): missedEventCheckAnswered(asked: asked, result, on: socket, at: now)
        case .resynchronize: break
        case .leave(let ticket, let endSession): leaveAnswered(result, on: socket, ticket: ticket, endSession: endSession, at: now)
        }
    }
}
