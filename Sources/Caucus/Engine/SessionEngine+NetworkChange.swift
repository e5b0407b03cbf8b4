import CaucusProtocol

/// A network change: the path came back or moved to another interface, or the app returned to
/// the foreground. The socket may have died with the old path without a word (nothing is
/// read on a dead path, and the next ping is up to `pingInterval` away), so the engine finds
/// out now rather than leaving the seat at risk until then.
extension SessionEngine {
    /// Connected: pings on the current socket, bounded by `connectTimeout`; a socket that does
    /// not answer is given up and the seat resumed on a new one at once, as after a drop (same
    /// user, same room, every missed event). A socket that answers is kept, so a change that
    /// did not hurt it costs one ping. Reconnecting: the next attempt is made now
    /// (`reconnectNow`). Otherwise (not joined, joining, leaving, left): nothing.
    ///
    /// Returns once the check is done: the socket answered, or the reconnect has begun (at
    /// once if a check of this socket is already under way).
    func networkChanged() async {
        switch phase {
        case .connected:
            await checkSocketAfterNetworkChange()
        case .reconnecting:
            reconnectNow()
        case .idle, .joining, .leaving, .closed:
            return
        }
    }

    private func checkSocketAfterNetworkChange() async {
        // One check per socket at a time: a path monitor reports changes in bursts.
        guard let socket, probedSocket != socket.id else { return }
        probedSocket = socket.id
        defer { if probedSocket == socket.id { probedSocket = nil } }
        let answer = await exchange(WireRequest(.ping), on: socket, within: configuration.connectTimeout)
        // Meanwhile the socket may have closed (a reconnect has begun) or the session ended.
        guard phase == .connected, self.socket === socket, case .failure = answer else { return }
        configuration.logger.info("no answer on the connection after a network change; reconnecting")
        self.socket = nil
        failPending(on: socket.id)
        // Not `close()`, whose closing handshake would wait for an answer a dead path never brings.
        socket.abandon()
        beginReconnect()
    }
}
