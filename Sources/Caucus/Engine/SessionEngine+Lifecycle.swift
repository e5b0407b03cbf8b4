import CaucusCore
import CaucusProtocol

/// Joining, leaving, and the end of a session.
extension SessionEngine {
    typealias PasswordSource = @Sendable (PasswordPrompt) async -> String?

    /// Connects and joins. On need-password or password-wrong, asks `password` for another
    /// and retries on the same connection; gives up when it answers nil.
    func join(
        url: String, sessionName: String, userName: String, token: String, password: String?, askPassword: PasswordSource
    ) async throws(SessionError) -> CaucusSession.Snapshot {
        guard phase == .idle || phase == .closed else { throw .alreadyJoined }
        phase = .joining
        self.url = url
        setEntries(url)
        model = nil
        secret = nil
        endReason = nil
        setConnection(.connecting)
        do throws(SessionError) {
            var socket = try await connectToAnEntry()
            attach(socket)
            var password = password
            var redirects = 0
            while true {
                let request = WireRequest.join(session: sessionName, userName: userName, token: token, password: password)
                let result = await exchange(request, on: socket)
                if let next = Self.redirect(result), redirects < Self.redirectLimit {
                    // Several nodes: another node serves the session; join there.
                    redirects += 1
                    socket = try await move(from: socket, to: next)
                    continue
                }
                switch result {
                case .success(.joined(_, let secret, let snapshot)):
                    return joined(secret: secret, snapshot: snapshot)
                case .success(let other):
                    throw .invalidResponse("join was answered with \(other)")
                case .failure(.refused(let error)) where error.errorCode == .needPassword || error.errorCode == .passwordWrong:
                    let prompt: PasswordPrompt = error.errorCode == .needPassword ? .needed : .wrong
                    hub.emit(prompt == .needed ? .needPassword : .passwordWrong)
                    guard phase == .joining, let next = await askPassword(prompt), phase == .joining else {
                        throw .refused(error)
                    }
                    password = next
                case .failure(let error):
                    throw error
                }
            }
        } catch {
            socket?.close()
            socket = nil
            failPending()
            if phase == .joining { phase = .idle }
            releaseWaiters(.failure(.notJoined))
            setConnection(.disconnected)
            throw error
        }
    }

    private func joined(secret: String, snapshot: SessionSnapshot) -> CaucusSession.Snapshot {
        self.secret = secret
        let model = LocalModel(snapshot: snapshot)
        self.model = model
        phase = .connected
        if let socket { startKeepalive(on: socket) }
        setConnection(.connected)
        releaseWaiters(.success(()))
        startCheckingForMissedEvents()
        networkWatcher.start { [weak self] in
            Task { await self?.networkChanged() }
        }
        let view = CaucusSession.Snapshot(model: model, engine: self)
        var events: [SessionEvent] = [.sessionJoined(view)]
        if view.myRole.isManaging { events.append(.managerHandle(SubsessionManager(engine: self))) }
        if let room = view.mySubsession { events.append(.participantHandle(SubsessionParticipant(subsession: room, engine: self))) }
        hub.emit(events)
        return view
    }

    /// Leaves; a host may end the session for everyone. Returns once the server has let go,
    /// or at once while the connection is down: the session is over for this user there and
    /// then (`sessionLeft(.left)`), and the server hears of it when the connection returns
    /// within its grace (a `Farewell`), else when the seat expires.
    func leave(endSession: Bool) async throws(SessionError) {
        if phase == .joining { try await waitUntilConnected() }
        if phase == .reconnecting { return leaveOffline(endSession: endSession, dropped: reconnectProgress.dropped) }
        guard phase == .connected, let socket else { throw .notJoined }
        phase = .leaving
        // Bounded by silence, as the keepalive is: on a connection that died without a word,
        // leaving must not wait out `requestTimeout`.
        switch await exchange(.leave(endSession: endSession), on: socket, patience: .quiet(configuration.connectTimeout)) {
        case .success, .failure(.connectionLost):
            // Ending the session closes every connection before the reply can be sent.
            finish(endReason ?? .left)
        case .failure(.timedOut) where phase == .leaving:
            // Dead, as far as anyone can tell: leave as if offline.
            self.socket = nil
            failPending(on: socket.id)
            socket.abandon()
            leaveOffline(endSession: endSession, dropped: .now)
        case .failure where phase == .closed:
            // The session ended meanwhile (`sessionLeft` told why): nothing left to leave.
            return
        case .failure(let error):
            if phase == .leaving {
                phase = .connected
                startKeepalive(on: socket)
            }
            throw error
        }
    }

    /// Leaves without the server: over for this user now, and a `Farewell` tells the server
    /// if the connection comes back while the seat is held.
    private func leaveOffline(endSession: Bool, dropped: ContinuousClock.Instant) {
        if let secret, let lastSeq = model?.seq {
            let farewell = Farewell(
                url: url, secret: secret, lastSeq: lastSeq, endSession: endSession, configuration: configuration,
                schedule: reconnectSchedule(), dropped: dropped)
            Task { await farewell.run() }
        }
        finish(.left)
    }

    /// The socket ended. An unexpected end (a drop, a restart, being too slow) starts a
    /// reconnect; the server's own ends (session ended, removed, replaced, left) are final.
    func socketClosed(_ id: Int, code: UInt16?) {
        guard id == socket?.id else { return }
        socket = nil
        failPending(on: id)
        guard phase == .connected else { return }
        switch code {
        case 4002: finish(endReason ?? .sessionEnded(.endedByServer))
        case 4003: finish(.removed)
        case 4004: finish(.replaced)
        case 4005: finish(endReason ?? .left)
        default: beginReconnect()
        }
    }

    /// The session is over for this user.
    func finish(_ reason: SessionLeftReason) {
        guard phase != .closed else { return }
        phase = .closed
        mediaSlots.sessionEnded()
        reconnectTask?.cancel()
        reconnectTask = nil
        stopKeepalive()
        stopCheckingForMissedEvents()
        networkWatcher.stop()
        socket?.close()
        socket = nil
        failPending()
        releaseWaiters(.failure(.notJoined))
        // The session is over for this user: a snapshot kept now would still place them in
        // their room and hand out room and manager handles whose every call fails. No snapshot
        // says "not in a session", and it is gone before `sessionLeft` is delivered.
        model = nil
        setConnection(.disconnected)
        hub.emit(.sessionLeft(reason))
    }

    /// The session object is gone: drop the connection (the server holds the seat for its
    /// grace, then lets it go) and end the event streams.
    func shutdown() {
        if phase != .closed && phase != .idle {
            phase = .closed
            mediaSlots.sessionEnded()
            reconnectTask?.cancel()
            socket?.close()
            socket = nil
            failPending()
            releaseWaiters(.failure(.notJoined))
        }
        stopKeepalive()
        stopCheckingForMissedEvents()
        networkWatcher.stop()
        hub.finish()
    }
}
