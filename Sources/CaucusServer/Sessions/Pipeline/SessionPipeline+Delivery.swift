import CaucusCore
import CaucusProtocol

/// What happens when the store answers: a stored batch is delivered (events, then the
/// replies they complete, then the closes they cause) and its waiters resumed; a refused
/// batch breaks the session.
extension SessionPipeline {
    /// The batch handed over by the last `append` is durable.
    mutating func batchStored() -> [Action] {
        guard let batch = storing, let last = batch.last else { return [] }
        storing = nil
        durableSeq = last.event.seq
        var actions = deliver(batch)
        let ready = waiters.filter { $0.seq <= durableSeq }.map(\.ticket)
        waiters.removeAll { $0.seq <= durableSeq }
        if !ready.isEmpty { actions.append(.complete(ready, failure: nil)) }
        if let next = startStoring() { actions.append(next) }
        if case .sessionEnded = last.event.event { actions.append(.sessionClosed) }
        return actions
    }

    /// The store refused the batch: nothing decided since the last durable event happened for
    /// anyone. Every waiting caller fails, every client is told to reconnect, the name is freed.
    mutating func storeFailed() -> [Action] {
        // Each command still waiting is answered before the close, so its sender knows which
        // of its commands took effect (those answered `done`) and which did not.
        let refusals = owedReplies(failing: Self.storeFailure)
        return broken(closing: .storeFailure, reason: "The session could not be saved.", after: refusals)
    }

    /// The error reply of every command (join, resume, settings change) whose answer waits
    /// for an event that will now never be stored, in request order per connection.
    private func owedReplies(failing error: CaucusError) -> [Action] {
        var frames: [Connection: [Frame]] = [:]
        var answered: [Connection: [Int]] = [:]
        var order: [Connection] = []
        for seq in replies.keys.sorted() {
            for reply in replies[seq] ?? [] {
                if frames[reply.connection] == nil { order.append(reply.connection) }
                frames[reply.connection, default: []].append(encoding.frame(.error(re: reply.requestID, ErrorBody(error))))
                answered[reply.connection, default: []].append(reply.requestID)
            }
        }
        guard !order.isEmpty else { return [] }
        return order.map { .answered($0, requestIDs: answered[$0] ?? []) } + [.send(order.map { Delivery(connection: $0, frames: frames[$0] ?? []) })]
    }

    /// Several nodes: another node took the session over (this one's lease was fenced or ran
    /// out). Nothing more is written here; each command still waiting for the store is
    /// answered that it did not take effect (as after a store failure), then every client is
    /// told to reconnect, and resumes through any node on the one that has the session now.
    mutating func leaseLost() -> [Action] {
        let refusals = owedReplies(failing: Self.storeFailure)
        return broken(closing: .moved, reason: "The session moved to another node; reconnect and resume.", after: refusals)
    }

    /// Several nodes: the batch that would open the session was refused because another node
    /// opened a live session of the same name first. Nobody's join was durable, so no client
    /// is closed: each joiner's waiter fails, and its join is placed again (and sent to the
    /// node that won).
    mutating func openingRefused() -> [Action] {
        broken(closing: nil)
    }

    private mutating func broken(closing code: CloseCode, reason: String, after replies: [Action] = []) -> [Action] {
        broken(closing: (code, reason), after: replies)
    }

    /// Stops the session: `replies` (sends) go out first, then the closes; the waiting
    /// callers resume last, when every connection is already closed, so that none of them
    /// answers again what was answered here.
    private mutating func broken(closing close: (code: CloseCode, reason: String)?, after replies: [Action] = []) -> [Action] {
        guard lifecycle != .broken else { return [] }
        lifecycle = .broken
        storing = nil
        pending.removeAll()
        self.replies.removeAll()
        rosterHold = RosterHold()
        var actions: [Action] = replies
        if let close {
            for connection in connections.values { actions.append(.close(connection, close.code, reason: close.reason)) }
        }
        if !waiters.isEmpty { actions.append(.complete(waiters.map(\.ticket), failure: Self.storeFailure)) }
        waiters.removeAll()
        connections.removeAll()
        actions.append(.scheduleTick(at: nil))
        actions.append(.sessionClosed)
        return actions
    }

    /// The roster window ended: everything held goes out.
    mutating func rosterWindowEnded() -> [Action] {
        rosterHold.releaseAll().map { .sendShared($0.recipients, frames: $0.frames) }
    }

    /// A snapshot for `user` that agrees with the events it already has: only once every
    /// event it includes is delivered (else wait for `seq` to be durable and ask again), and
    /// after the roster news held for it.
    mutating func deliveredSnapshot(for user: UserID) -> (snapshot: SessionSnapshot?, actions: [Action]) {
        guard durableSeq == seq else { return (nil, []) }
        let actions = connections[user].map { flushHeldRoster(of: $0) } ?? []
        return (SessionSnapshot(state: state, viewer: user, seq: seq), actions)
    }

    /// How long roster news is held: the configured window up to 100 users, then growing with
    /// the session (10 ms at 200 users, 50 ms at 1,000), at most 250 ms. In a join storm into a
    /// big session every present user hears of every join; a longer window turns what would be
    /// one write per join per user into one write per window per user, while a user still hears
    /// of everyone well within a second of the last join (docs/protocol.md, "Roster window").
    static func rosterWindow(base: Duration, users: Int) -> Duration {
        guard base > .zero else { return .zero }
        return min(base * max(1, users / 100), max(base, .milliseconds(250)))
    }

    /// Sends a connection's held roster news now, before something that must follow it.
    mutating func flushHeldRoster(of connection: Connection) -> [Action] {
        let frames = rosterHold.release(connection)
        return frames.isEmpty ? [] : [.send([Delivery(connection: connection, frames: frames.map(\.frame))])]
    }

    /// Each connection gets its frames of the batch (events, then the replies they complete)
    /// in one write, after the roster news held for it; roster news itself is held once for
    /// everyone for the roster window. The connections the batch ends are closed after.
    private mutating func deliver(_ batch: [Outgoing]) -> [Action] {
        // Each frame with its event's seq (a reply with the seq of the event it follows).
        var outbox: [Connection: [(seq: Int, frame: Frame)]] = [:]
        var order: [Connection] = []
        func queue(_ frame: Frame, seq: Int, to connection: Connection) {
            if outbox[connection] == nil { order.append(connection) }
            outbox[connection, default: []].append((seq, frame))
        }
        var closing: [(Connection, CloseCode, String)] = []
        var windowStarts = false
        for outgoing in batch {
            let seq = outgoing.event.seq
            if holdsRoster, outgoing.event.event.isRosterNews, case .everyone = outgoing.recipients {
                // Whoever's first frame already covers it (a joiner, a resumer) skips it.
                windowStarts = rosterHold.hold(outgoing.frame, seq: seq) || windowStarts
            } else {
                for user in outgoing.recipients.users {
                    if let floor = deliveryFloor[user], seq <= floor { continue }
                    if let connection = connections[user] { queue(outgoing.frame, seq: seq, to: connection) }
                }
            }
            if let owed = replies.removeValue(forKey: seq) {
                for reply in owed {
                    queue(reply.frame ?? encoding.frame(.reply(re: reply.requestID, result: .done(seq: seq))), seq: seq, to: reply.connection)
                }
                deliveryFloor = deliveryFloor.filter { $0.value > seq }
            }
            closing += connectionsEnded(by: outgoing.event.event)
        }
        let sending = order.map { connection in
            Delivery(connection: connection, frames: Self.merged(rosterHold.release(connection), outbox[connection] ?? []))
        }
        var actions: [Action] = sending.isEmpty ? [] : [.send(sending)]
        if windowStarts { actions.append(.startRosterWindow(Self.rosterWindow(base: rosterWindow, users: state.users.count))) }
        for (connection, code, reason) in closing {
            actions += flushHeldRoster(of: connection)
            rosterHold.forget(connection)
            actions.append(.close(connection, code, reason: reason))
        }
        return actions
    }

    /// Held roster news and a batch's frames for one connection, in seq order: news held from
    /// this very batch may come before some of its frames. On a tie the held event goes first
    /// (the other frame is then the reply that follows it).
    private static func merged(_ held: [(seq: Int, frame: Frame)], _ fresh: [(seq: Int, frame: Frame)]) -> [Frame] {
        guard !held.isEmpty else { return fresh.map(\.frame) }
        var frames: [Frame] = []
        frames.reserveCapacity(held.count + fresh.count)
        var h = held.startIndex
        var f = fresh.startIndex
        while h < held.endIndex || f < fresh.endIndex {
            if f == fresh.endIndex || (h < held.endIndex && held[h].seq <= fresh[f].seq) {
                frames.append(held[h].frame)
                h += 1
            } else {
                frames.append(fresh[f].frame)
                f += 1
            }
        }
        return frames
    }

    /// Connections an event ends: taken out of the session now (so later events skip them),
    /// closed once the batch's frames are on their way.
    private mutating func connectionsEnded(by event: Event) -> [(Connection, CloseCode, String)] {
        switch event {
        case .userLeft(let id, let reason, _):
            let takenOver = takenOverSeats.remove(id) != nil
            // One who left still gets the reply to its `leave`; its socket closes after it.
            guard let connection = connections.removeValue(forKey: id) else { return [] }
            guard reason == .removed else {
                rosterHold.forget(connection)
                return []
            }
            if takenOver {
                return [(connection, .replaced, "Your seat was taken over in another browser.")]
            }
            return [(connection, .removed, "You were removed from the session.")]
        case .sessionEnded:
            let ended = connections.values.map { ($0, CloseCode.sessionEnded, "The session ended.") }
            connections.removeAll()
            return ended
        default:
            return []
        }
    }
}
