import CaucusCore

/// This user's audio, as the seeds' `getAudioHelper()`: start and stop it, mute and unmute
/// yourself, and hand in encoded Opus frames. What others say arrives as
/// ``CaucusSession/mediaFrames``.
///
/// The app captures and encodes (Opus, 48 kHz): the SDK carries the frames. Starting makes
/// the session's media connection if there is none yet (an offer, then ICE and DTLS-SRTP to
/// the server's media port); it follows every move, pause and mute of the session by itself.
public struct AudioHelper: Sendable {
    private let media: MediaEngine

    init(media: MediaEngine) { self.media = media }

    /// Joins audio: others' audio reaches ``CaucusSession/mediaFrames``, and this user
    /// publishes its own (unless `muted`: then it only listens until ``unmute()``). Everyone
    /// hears of it as `SessionEvent.mediaChanged`.
    public func start(muted: Bool = false) async throws(SessionError) {
        try await media.setAudio(muted ? .muted : .on)
    }

    /// Leaves audio: nothing published, nothing of others' audio delivered.
    public func stop() async throws(SessionError) {
        try await media.setAudio(.off)
    }

    /// Stops publishing audio but keeps listening; frames sent meanwhile are refused.
    /// Everyone sees this user's `publishing` lose `.audio`.
    public func mute() async throws(SessionError) {
        try await media.setAudio(.muted)
    }

    /// Publishes audio again after ``mute()`` (or starts audio unmuted).
    public func unmute() async throws(SessionError) {
        try await media.setAudio(.on)
    }

    /// Mutes another user's microphone: the host mutes anyone, a manager mutes participants.
    /// The server stops forwarding that user's audio at once; its app hears
    /// `SessionEvent.mediaMuted` and its SDK stops sending. Only that user can unmute itself:
    /// nobody turns on someone else's microphone.
    public func mute(user: UserID) async throws(SessionError) {
        try await media.mute(user, .audio)
    }

    /// Whether audio is started, and whether this user is muted.
    public var isStarted: Bool { get async { await media.audio != .off } }
    public var isMuted: Bool { get async { await media.audio == .muted } }

    /// Who speaks in this user's location (main session or room), loudest first, at most
    /// four: a new list each time it changes (at most twice a second), ranked by the server
    /// from the levels publishers' frames carry (``EncodedFrame/audioLevel``). Needs the
    /// media connection (``start(muted:)``). A new stream from now on.
    public var activeSpeakers: AsyncStream<[UserID]> { media.activeSpeakers.subscribe() }

    /// Sends one Opus frame (the encoder's packet, e.g. 20 ms). Returns at once: the frame is
    /// packetised and sent on the media connection's own thread. Throws while audio is not
    /// started or is muted, or for an empty frame or one too large for a packet.
    public func send(_ frame: EncodedFrame) throws(SessionError) {
        try media.send(frame, as: .audio)
    }
}
