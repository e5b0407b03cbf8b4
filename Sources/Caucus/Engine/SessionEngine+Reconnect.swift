import CaucusCore
import CaucusProtocol

/// Reconnecting: a dropped connection comes back on a new socket, resumes the same seat with
/// the secret from the join and the last event seen, and gets every missed event in order.
extension SessionEngine {
    /// When the connection dropped, and what the reconnect loop is doing.
    struct ReconnectProgress {
        enum Stage { case waiting, opening, resuming }

        var dropped = ContinuousClock.now
        var stage = Stage.waiting
    }

    func beginReconnect() {
        stopKeepalive()
        phase = .reconnecting
        setConnection(.reconnecting)
        reconnectProgress = ReconnectProgress()
        startReconnecting()
    }

    /// Starts the reconnect loop on a fresh schedule: an attempt at once, then the backoff,
    /// until the deadline counted from the drop.
    func startReconnecting() {
        let schedule = reconnectSchedule()
        reconnectTask = Task { await self.reconnect(following: schedule) }
    }

    /// A fresh schedule of attempts to reach the seat again.
    func reconnectSchedule() -> ReconnectSchedule {
        // The server holds the seat for its grace (the limits it sent); past it, a resume can
        // only be refused. Attempts stop a margin later, for the time the server took to notice.
        let grace = model?.state.limits.reconnectGraceSeconds ?? 30
        return ReconnectSchedule(delays: configuration.reconnectDelay, deadline: .seconds(grace) + configuration.reconnectExtraTime)
    }

    /// Cuts the wait short after a network change: the attempt under way (waiting out its
    /// backoff, opening on what may have been the old path, or resuming on a socket that may
    /// have died with it) is given up and a new one made at once.
    func reconnectNow() {
        guard phase == .reconnecting else { return }
        if reconnectProgress.stage == .resuming, let socket {
            // Its resume (or the ping after it) fails with `connectionLost`, and the cancelled
            // attempt ends there.
            self.socket = nil
            failPending(on: socket.id)
            socket.abandon()
        }
        reconnectTask?.cancel()
        startReconnecting()
    }

    private func reconnect(following plan: ReconnectSchedule) async {
        var schedule = plan
        while phase == .reconnecting && !Task.isCancelled {
            switch schedule.next(elapsed: .now - reconnectProgress.dropped, random: .random(in: 0..<1)) {
            case .giveUp:
                hub.emit(.error(.connectionFailed("The server stayed unreachable past the reconnect grace.")))
                finish(.connectionLost)
                return
            case .attempt(let delay):
                reconnectProgress.stage = .waiting
                if delay > .zero { try? await Task.sleep(for: delay) }
                guard phase == .reconnecting && !Task.isCancelled else { return }
                if await resumeOnce() { return }
            }
        }
    }

    /// One attempt. Returns true when reconnecting is over (resumed, or refused for good).
    private func resumeOnce() async -> Bool {
        guard let secret, let lastSeq = model?.seq else {
            finish(.connectionLost)
            return true
        }
        var socket: Socket
        reconnectProgress.stage = .opening
        do throws(SessionError) {
            socket = try await Socket.connect(to: url, configuration: configuration)
        } catch {
            // Several nodes: the serving node may be gone; the next attempt asks another.
            url = nextEntryURL()
            return false
        }
        // Cancelled: a network change started another attempt (`reconnectNow`).
        guard phase == .reconnecting, !Task.isCancelled else {
            socket.close()
            return true
        }
        reconnectProgress.stage = .resuming
        attach(socket)
        // Bounded like opening, not by `requestTimeout`: a path that dies just after the
        // upgrade must cost one short attempt, not the seat (the server's grace is no longer
        // than `requestTimeout`). The missed events come after the reply, and the ping after
        // them, so those waits are bounded by silence: a long replay is still awaited.
        let patience = SessionEngine.Patience.quiet(configuration.connectTimeout)
        var result = await exchange(.resume(secret: secret, lastSeq: lastSeq), on: socket, patience: patience)
        var redirects = 0
        while let next = Self.redirect(result), redirects < Self.redirectLimit, phase == .reconnecting {
            // Several nodes: another node serves the session (or took it over); resume there.
            redirects += 1
            do throws(SessionError) {
                socket = try await move(from: socket, to: next)
            } catch {
                // Sent to a node that is gone (its lease has not expired yet): ask an entry
                // node again on the next attempt.
                url = nextEntryURL()
                return false
            }
            result = await exchange(.resume(secret: secret, lastSeq: lastSeq), on: socket, patience: patience)
        }
        switch result {
        case .success(.resumed(_, _, let fresh)):
            if let fresh, var current = model {
                // Too long away to replay: a fresh snapshot instead of the missed events.
                current.reset(to: fresh)
                model = current
                if let view = snapshot { hub.emit(.resynchronized(view)) }
            }
            // The server sends the missed events right after the resume reply, before it reads
            // the next request: once a ping is answered, all of them have been delivered.
            guard case .success = await exchange(WireRequest(.ping), on: socket, patience: patience),
                phase == .reconnecting, self.socket === socket
            else {
                drop(socket)
                return phase != .reconnecting
            }
            phase = .connected
            startKeepalive(on: socket)
            setConnection(.connected)
            releaseWaiters(.success(()))
            mediaSlots.resumed()
            return true
        case .failure(.refused(let error)) where error.errorCode == .resumeRefused:
            hub.emit(.error(.refused(error)))
            finish(.connectionLost)
            return true
        default:
            drop(socket)
            return phase != .reconnecting
        }
    }

    /// Gives up an attempt's socket. Abandoned, not closed: it may be dead (a closing
    /// handshake would wait for an answer that never comes).
    private func drop(_ socket: Socket) {
        if self.socket === socket {
            self.socket = nil
            failPending(on: socket.id)
        }
        socket.abandon()
    }
}
