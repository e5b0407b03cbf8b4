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
        guard let socket else { return }
        await probe(socket, after: "no answer after a network change")
    }
}
