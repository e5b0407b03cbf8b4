import CaucusCore

/// This user's screen share, as the seeds' share helper: start and stop it, and hand in
/// encoded frames of the screen (VP8, or H.264 by `Configuration.videoCodec`). Others'
/// shares arrive as ``CaucusSession/mediaFrames`` with `kind == .screenShare`, in the user's
/// one screen-share slot.
///
/// Capture is the app's (on iOS a ReplayKit broadcast extension, on macOS ScreenCaptureKit);
/// a room whose definition forbids screen share forwards none of it.
public struct ShareHelper: Sendable {
    private let media: MediaEngine

    init(media: MediaEngine) { self.media = media }

    /// Publishes a screen share: frames handed to ``send(_:)`` reach everyone who may see it.
    /// Everyone hears of it as `SessionEvent.mediaChanged` (`.screenShare` in `publishing`).
    public func start() async throws(SessionError) {
        try await media.setShare(true)
    }

    /// Stops the screen share.
    public func stop() async throws(SessionError) {
        try await media.setShare(false)
    }

    public var isStarted: Bool { get async { await media.share } }

    /// Sends one frame of the screen (of `Configuration.videoCodec`). Returns at once. Throws
    /// while the share is not started, for an empty frame or one of another codec.
    public func send(_ frame: EncodedFrame) throws(SessionError) {
        try media.send(frame, as: .screenShare)
    }

    /// One value each time the server asks for a keyframe of this user's screen share.
    public var keyframeRequests: AsyncStream<Void> { media.shareKeyframeRequests.subscribe() }
}
