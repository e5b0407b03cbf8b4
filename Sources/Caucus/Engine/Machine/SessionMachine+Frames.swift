import CaucusCore
import CaucusProtocol

/// What arrives on the session's socket: replies, refusals, events and slot maps. Handling a
/// frame is one input, so an event is applied, published and delivered before the next frame
/// (and before the reply of the call that caused it) is looked at.
extension SessionMachine {
    mutating func received(_ frame: ServerFrame, on socket: SocketID, at now: Instant) -> [Action] {
        guard socket == currentSocket else { return [] }
        heard(socket, at: now)
        switch frame {
        case .reply(let re, let result):
            // Replaced here, before the next frame is read: every event the snapshot includes
            // came before it, and every later one comes after.
            if pending[re]?.purpose == .resynchronize, case .snapshot(let fresh) = result { resynchronize(to: fresh) }
            respond(re, .success(result), at: now)
        case .error(let re, let body):
            if let re, pending[re] != nil {
                respond(re, .failure(.refused(ServerError(body))), at: now)
            } else {
                deliver(.error(.refused(ServerError(body))))
            }
        case .event(let event):
            take(event, at: now)
        case .unknownEvent(let seq, _, _):
            // A newer server's event: nothing to apply or tell, but it was seen.
            updateModel { $0.skip(past: seq) }
        case .mediaSlots(let slots, let unplayable, let speakers):
            // Not an event: who fills this user's receive slots, for its media peer.
            emit(.media(.slots(slots, unplayable: unplayable, activeSpeakers: speakers)))
        }
        return flush()
    }

    /// A frame that could not be read: the app hears of it; the socket was still heard from.
    mutating func unreadable(_ reason: String, on socket: SocketID, at now: Instant) -> [Action] {
        guard socket == currentSocket else { return [] }
        heard(socket, at: now)
        deliver(.error(.invalidResponse(reason)))
        return flush()
    }

    /// Applies one event, publishes the new model, then delivers the event.
    private mutating func take(_ event: SequencedEvent, at now: Instant) {
        guard let (before, after) = withModel({ $0.absorb(event) }) ?? nil else { return }
        if case .statusChanged = event.event { rememberCreatedRooms(before: before, after: after, seq: event.seq) }
        guard let model else { return }
        emit(.publish(model))
        deliver(.event(event, before: before, after: after, model: model))
        afterEffects(of: event.event, me: model.me, at: now)
    }

    /// What an event means for the connection: the end of the session. (A larger role needs
    /// nothing here: the server follows the change with a `roleView` of what it sees.)
    private mutating func afterEffects(of event: Event, me: UserID, at now: Instant) {
        let leaving = if case .leaving = phase { true } else { false }
        switch event {
        case .sessionEnded(let reason):
            noteEnd(.sessionEnded(reason))
            if !leaving { finish(.sessionEnded(reason), at: now) }
        case .userLeft(me, .removed, _):
            noteEnd(.removed)
            if !leaving { finish(.removed, at: now) }
        default:
            break
        }
    }

    // MARK: - Missed events

    /// Every `missedEventCheckInterval` while joined: a `ping` with `after` asks how many
    /// events the server sent this seat since the last check (only while connected).
    mutating func checkForMissedEvents(at now: Instant) {
        guard seat != nil else { return }
        emit(.schedule(.missedEventCheck, at: now + settings.missedEventCheckInterval))
        guard case .connected(let socket) = phase, let asked = model?.missedEventCheck.after else { return }
        var ping = WireRequest(.ping)
        ping.after = asked
        send(ping, on: socket, for: .missedEventCheck(asked: asked), patience: .total(settings.requestTimeout), at: now)
    }

    /// Fewer events arrived than the server sent: the state is taken afresh from a snapshot.
    mutating func missedEventCheckAnswered(asked: Int, _ result: Result<ReplyResult, SessionError>, on socket: SocketID, at now: Instant) {
        guard case .success(.pong(let seq?, let sent)) = result, case .connected(socket) = phase,
            let verdict = withModel({ $0.settleMissedEventCheck(asked: asked, seq: seq, sent: sent) })
        else { return }
        emit(.publish(model))
        guard case .missed(let sentCount, let received) = verdict else { return }
        emit(.log(.warning, "\(sentCount - received) event(s) after seq \(asked) never arrived; taking a fresh snapshot"))
        send(WireRequest(.getSnapshot), on: socket, for: .resynchronize, patience: .total(settings.requestTimeout), at: now)
    }

    /// Starts over from a snapshot, whose reply came after every event it includes.
    mutating func resynchronize(to fresh: SessionSnapshot) {
        guard let current = model, fresh.seq >= current.seq else { return }
        updateModel { $0.reset(to: fresh) }
        if let model { deliver(.resynchronized(model)) }
    }

    // MARK: - Timers

    mutating func timerFired(_ timer: Timer, at now: Instant) -> [Action] {
        switch timer {
        case .request(let id): requestBoundReached(id, at: now)
        case .keepalive(let socket): keepalive(socket, at: now)
        case .missedEventCheck: checkForMissedEvents(at: now)
        case .reconnect(let attempt): backoffEnded(attempt, at: now)
        case .joinRetry(let attempt): crowdedJoinRetryDue(attempt, at: now)
        }
        return flush()
    }
}
