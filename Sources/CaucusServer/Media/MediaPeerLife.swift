import NIOConcurrencyHelpers

/// Where the media loops report a peer that connected (ICE and DTLS done) and a peer that ended
/// on its own (ICE consent lost, setup timed out, DTLS failed or ended by the client), so that
/// its session knows which peers carry media: it keeps a reconnecting user's media routed only
/// while its peer lives. Each peer is named by its key and the number its answer gave it, so
/// that news of a peer a new offer replaced is told apart from news of the new one.
final class MediaPeerLife: Sendable {
    typealias Listener = @Sendable (_ key: MediaPeerKey, _ peer: UInt64, _ alive: Bool) -> Void

    private let listener = NIOLockedValueBox<Listener?>(nil)

    /// From now on the news goes to `listener` (the server's sessions, once they exist).
    func listen(_ listener: @escaping Listener) { self.listener.withLockedValue { $0 = listener } }

    func report(_ key: MediaPeerKey, peer: UInt64, alive: Bool) { listener.withLockedValue { $0 }?(key, peer, alive) }
}
