import CaucusCore
import CaucusProtocol
import NIOCore

/// Delivery: a durable batch's frames to their connections, with roster news held for the
/// roster window, and the connections a batch ends closed after their last frames.
extension SessionActor {
    /// Delivers a durable batch: each connection gets its frames (events, then the replies
    /// they complete) in one write — or, when all of them are roster news, held for the
    /// roster window — and connections the batch ends are closed after.
    func deliver(_ batch: [Outgoing]) {
        let clock = ContinuousClock()
        let started = clock.now
        var outbox: [ConnectionRef: (frames: [ByteBuffer], urgent: Bool)] = [:]
        var order: [ConnectionRef] = []
        func queue(_ frame: ByteBuffer, to connection: ClientConnection, urgent: Bool) {
            let ref = ConnectionRef(connection)
            if outbox[ref] == nil {
                outbox[ref] = ([], false)
                order.append(ref)
            }
            outbox[ref]?.frames.append(frame)
            if urgent { outbox[ref]?.urgent = true }
        }
        var closing: [(ClientConnection, CloseCode, String)] = []
        for outgoing in batch {
            let seq = outgoing.event.seq
            let urgent = !outgoing.event.event.isRosterNews
            for user in outgoing.recipients.users {
                if let floor = deliveryFloor[user], seq <= floor { continue }
                if let connection = connections[user] { queue(outgoing.frame, to: connection, urgent: urgent) }
            }
            if let reply = pendingReplies.removeValue(forKey: seq) {
                let frame = reply.frame ?? Self.encode(.reply(re: reply.requestID, result: .done(seq: seq)), with: encoder)
                queue(frame, to: reply.connection, urgent: true)
                deliveryFloor = deliveryFloor.filter { $0.value > seq }
            }
            closing += connectionsEnded(by: outgoing.event.event)
        }
        let holding = environment.rosterWindow > .zero
        var sending: [(connection: ClientConnection, frames: [ByteBuffer])] = []
        for ref in order {
            guard let (frames, urgent) = outbox[ref] else { continue }
            switch holding ? rosterHold.deliver(frames, to: ref, urgent: urgent) : .send(frames) {
            case .send(let frames): sending.append((ref.connection, frames))
            case .held(let startTimer): if startTimer { scheduleRosterRelease() }
            }
        }
        environment.metrics.deliveries.increment(by: ClientConnection.send(sending))
        for (connection, code, reason) in closing {
            send(rosterHold.release(ConnectionRef(connection)), to: connection)
            connection.close(code, reason: reason)
        }
        environment.metrics.fanOut.recordInterval(clock.now - started)
    }

    private func send(_ frames: [ByteBuffer], to connection: ClientConnection) {
        guard !frames.isEmpty, connection.send(frames) else { return }
        environment.metrics.deliveries.increment(by: frames.count)
    }

    /// Sends what the roster window held, when it ends.
    private func scheduleRosterRelease() {
        let window = environment.rosterWindow
        Task { [weak self] in
            try? await Task.sleep(for: window)
            await self?.releaseRoster()
        }
    }

    func releaseRoster() {
        let released = rosterHold.releaseAll().map { (connection: $0.0.connection, frames: $0.1) }
        environment.metrics.deliveries.increment(by: ClientConnection.send(released))
    }

    /// Sends a connection's held roster news now, before something that must follow it.
    func releaseRoster(for connection: ClientConnection?) {
        guard let connection else { return }
        send(rosterHold.release(ConnectionRef(connection)), to: connection)
    }

    /// Connections an event ends: taken out of the session now (so later events skip them),
    /// closed once the batch's frames are on their way.
    func connectionsEnded(by event: Event) -> [(ClientConnection, CloseCode, String)] {
        switch event {
        case .userLeft(let id, let reason, _):
            // One who left still gets the reply to its `leave`; its socket closes after it.
            guard let connection = connections.removeValue(forKey: id), reason == .removed else { return [] }
            return [(connection, .removed, "You were removed from the session.")]
        case .sessionEnded:
            let ended = connections.values.map { ($0, CloseCode.sessionEnded, "The session ended.") }
            connections.removeAll()
            tickTask?.cancel()
            return ended
        default:
            return []
        }
    }
}
