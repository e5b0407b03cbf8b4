import NIOConcurrencyHelpers

/// Where the media loops report a peer that ended on its own (ICE consent lost, setup timed
/// out, DTLS failed or ended by the client), so that its session stops forwarding the media of
/// a user who is away: the session keeps a reconnecting user's media routed only while its
/// peer lives. Each peer is named by its key and the number its answer gave it, so that the
/// loss of a peer a new offer replaced is told apart from the loss of the new one.
final class MediaPeerLosses: Sendable {
    typealias Listener = @Sendable (_ key: MediaPeerKey, _ peer: UInt64) -> Void

    private let listener = NIOLockedValueBox<Listener?>(nil)

    /// From now on losses go to `listener` (the server's sessions, once they exist).
    func whenLost(_ listener: @escaping Listener) { self.listener.withLockedValue { $0 = listener } }

    func report(_ key: MediaPeerKey, peer: UInt64) { listener.withLockedValue { $0 }?(key, peer) }
}
