import CaucusMedia
import CaucusStore
import NIOCore

/// One of the media port's channels, one per event loop, all bound to the same port with
/// `SO_REUSEPORT`. A session's peers all live on one shard (its index comes from the session's
/// id), so the router forwards without a lock. The kernel picks the socket a datagram arrives
/// on by a hash of its addresses, so a datagram may reach another shard's socket: it is handed
/// to the right loop (`MediaChannelHandler.deliver`).
struct MediaShard: Sendable {
    let index: Int
    let channel: any Channel
    let handler: NIOLoopBound<MediaChannelHandler>

    var eventLoop: any EventLoop { channel.eventLoop }

    /// Runs `body` with the shard's handler on its loop.
    func execute(_ body: @escaping @Sendable (MediaChannelHandler) -> Void) {
        let handler = self.handler
        channel.eventLoop.execute { body(handler.value) }
    }

    /// The shard that serves `session`.
    static func index(of session: StoredSessionID, among count: Int) -> Int {
        Int(UInt64(bitPattern: session.rawValue) % UInt64(count))
    }

    /// The server's ICE credentials for a peer on shard `index`: its ufrag starts with the
    /// index and a "+" (an ICE character), so a binding request that reaches another shard's
    /// socket names the shard it belongs to.
    static func credentials(for index: Int) -> ICECredentials {
        let random = ICECredentials.random()
        return ICECredentials(ufrag: "\(index)+" + random.ufrag, pwd: random.pwd)
    }

    /// The shard a binding request's USERNAME names, if it is one of ours.
    static func index(inSTUN datagram: [UInt8]) -> Int? {
        guard let username = (try? DecodedSTUNMessage(decoding: datagram))?.message.username,
            let plus = username.firstIndex(of: "+")
        else { return nil }
        return Int(username[..<plus])
    }
}
