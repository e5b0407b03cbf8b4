import CaucusCore

extension CaucusSession {
    /// This user's audio: start, stop, mute, unmute, and the Opus frames it publishes.
    public var audioHelper: AudioHelper { AudioHelper(media: media) }

    /// This user's video: start, stop, and the frames it publishes.
    public var videoHelper: VideoHelper { VideoHelper(media: media) }

    /// This user's screen share: start, stop, and the frames of the screen.
    public var shareHelper: ShareHelper { ShareHelper(media: media) }

    /// A new stream of every frame others publish that reaches this user, from now on:
    /// whole frames, in order per user and kind, each with its publisher. Only the users of
    /// this user's own location (main session or room) are heard and seen; after a move
    /// the frames come from the new room's users, with no call from the app. Video starts at
    /// a keyframe and, after a loss, resumes at the next one.
    public var mediaFrames: AsyncStream<RemoteFrame> { media.frames.subscribe() }

    /// Publications this user may receive but cannot decode, by publisher, each time that
    /// changes (an empty dictionary when none is left): video of another codec than this
    /// user's `Configuration.videoCodec`, which the server never sends it. A new stream from
    /// now on; needs the media connection.
    public var unplayableMedia: AsyncStream<[UserID: MediaKinds]> { engine.mediaSlots.unplayable.subscribe() }

    /// The frames of one user (its audio and video), from now on.
    public func mediaFrames(from user: UserID) -> AsyncStream<RemoteFrame> {
        media.frames.subscribe { $0.user == user }
    }
}
