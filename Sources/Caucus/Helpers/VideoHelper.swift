import CaucusCore

/// This user's camera video, as the seeds' `getVideoHelper()`: start and stop it, and hand
/// in encoded VP8 (or H.264, by `Configuration.videoCodec`) frames. Others' video arrives as
/// ``CaucusSession/mediaFrames`` once the session's media connection is up (``start()`` or
/// ``AudioHelper/start(muted:)``).
public struct VideoHelper: Sendable {
    private let media: MediaEngine

    init(media: MediaEngine) { self.media = media }

    /// Publishes video: frames handed to ``send(_:)`` reach everyone who may see them.
    /// Everyone hears of it as `SessionEvent.mediaChanged`.
    public func start() async throws(SessionError) {
        try await media.setVideo(true)
    }

    /// Stops publishing video (others' video still arrives).
    public func stop() async throws(SessionError) {
        try await media.setVideo(false)
    }

    /// Stops another user's camera video: the host stops anyone's, a manager a participant's.
    /// The server stops forwarding it at once; that user's app hears `SessionEvent.mediaMuted`
    /// and its SDK stops sending. Only that user can start its video again: nobody turns on
    /// someone else's camera.
    public func mute(user: UserID) async throws(SessionError) {
        try await media.mute(user, .video)
    }

    public var isStarted: Bool { get async { await media.video } }

    /// Sends one frame (of `Configuration.videoCodec`), cut into packets here. Returns at once.
    /// Throws while video is not started, for an empty frame or one of another codec.
    public func send(_ frame: EncodedFrame) throws(SessionError) {
        try media.send(frame, as: .video)
    }

    /// One value each time the server asks for a keyframe of this user's video (someone new
    /// sees it, a move re-pointed a slot to it, or a receiver lost a picture): make the
    /// encoder's next frame a keyframe. A new stream from now on.
    public var keyframeRequests: AsyncStream<Void> { media.keyframeRequests.subscribe() }
}
