import CaucusProtocol

/// The SDK's own keepalive: while connected, a `ping` every `pingInterval` on the current
/// socket, which must answer within `connectTimeout` of silence. A connection that went
/// silently dead (a path that swallows packets: nothing closes, nothing arrives) is given up
/// and the seat resumed on a new one, within `pingInterval + connectTimeout` of its death,
/// well inside the server's reconnect grace. The WebSocket library's own pings are off: they
/// allow a whole interval for the pong, then wait out a closing handshake, which made a dead
/// connection take twice the interval and more to notice.
extension SessionEngine {
    /// Pings `socket` every `pingInterval` while it is the session's connection.
    func startKeepalive(on socket: Socket) {
        keepaliveTask?.cancel()
        let interval = configuration.pingInterval
        keepaliveTask = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled, let self, await self.probe(socket, after: "no answer to the keepalive ping") else {
                    return
                }
            }
        }
    }

    func stopKeepalive() {
        keepaliveTask?.cancel()
        keepaliveTask = nil
    }

    /// Pings `socket`, bounded by `connectTimeout` of silence. Returns whether it is still the
    /// session's live connection: false once it is gone, or given up here because it did not
    /// answer (then the reconnect has begun). At most one probe per socket at a time: a path
    /// monitor reports changes in bursts, and a keepalive may coincide with one; a probe
    /// already under way answers for both.
    @discardableResult
    func probe(_ socket: Socket, after what: String) async -> Bool {
        guard phase == .connected, self.socket === socket else { return false }
        guard probedSocket != socket.id else { return true }
        probedSocket = socket.id
        defer { if probedSocket == socket.id { probedSocket = nil } }
        let answer = await exchange(WireRequest(.ping), on: socket, patience: .quiet(configuration.connectTimeout))
        // Meanwhile the socket may have closed (a reconnect has begun) or the session ended.
        guard phase == .connected, self.socket === socket else { return false }
        guard case .failure = answer else { return true }
        configuration.logger.info("\(what) on the connection; reconnecting")
        self.socket = nil
        failPending(on: socket.id)
        // Not `close()`, whose closing handshake would wait for an answer a dead path never brings.
        socket.abandon()
        beginReconnect()
        return false
    }
}
