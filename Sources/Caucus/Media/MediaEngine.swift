import CaucusCore
internal import CaucusMedia
import CaucusProtocol
import NIOConcurrencyHelpers

/// This user's media: one peer (made at the first `start`), what it publishes, and the
/// frames it receives. The helpers (`AudioHelper`, `VideoHelper`, `ShareHelper`) are its face.
///
/// The offer is fixed once made: one audio, one camera and one screen-share section this
/// user sends on (each also a receive slot: the share section is the user's one screen-share
/// slot), and more receive-only slots, so that starting, stopping, muting and
/// moving never need a new offer. Starting and stopping say what the user publishes
/// (`publish`); muting is publishing without audio. Who fills each slot comes in the
/// server's slot maps, which the session's reader hands on through ``MediaSlotRelay``.
actor MediaEngine {
    /// How many receive slots of each kind the offer asks for (the sending sections included).
    static let audioSlots = 3
    static let videoSlots = 4

    enum AudioState: Equatable { case off, on, muted }

    /// What `send` reads without waiting: the connection, and which kinds go out.
    struct SendPath {
        var connection: MediaConnection?
        /// The kinds whose frames go out now (audio only while unmuted).
        var kinds: MediaKinds = []
    }

    private let session: SessionEngine
    /// Camera video's and screen share's codec (`Configuration.videoCodec`).
    nonisolated let videoCodec: MediaCodec
    nonisolated let frames = MediaBroadcast<RemoteFrame>(bufferLimit: 512)
    /// Keyframe requests for this user's camera video and for its screen share.
    nonisolated let keyframeRequests = MediaBroadcast<Void>(bufferLimit: 1)
    nonisolated let shareKeyframeRequests = MediaBroadcast<Void>(bufferLimit: 1)
    nonisolated var activeSpeakers: MediaBroadcast<[UserID]> { session.mediaSlots.activeSpeakers }
    nonisolated let sendPath = NIOLockedValueBox(SendPath())
    private var connection: MediaConnection?
    private var connecting: Task<Result<MediaConnection, SessionError>, Never>?
    private(set) var audio = AudioState.off
    private(set) var video = false
    private(set) var share = false

    /// The session is over for this user: no peer is made any more.
    private var ended = false
    /// A renewal under way, and whether another was asked for meanwhile.
    private var renewing = false
    private var renewAgain = false

    init(session: SessionEngine) {
        self.session = session
        videoCodec = session.configuration.videoCodec.codec
        session.mediaSlots.whenSessionEnds { [weak self] in
            guard let self else { return }
            Task { await self.close() }
        }
        session.mediaSlots.whenResumed { [weak self] in
            guard let self else { return }
            Task { await self.renew() }
        }
    }

    // MARK: - From the helpers

    func setAudio(_ state: AudioState) async throws(SessionError) {
        if state != .off { try await connect() }
        audio = state
        connection?.deliverAudio(state != .off)
        updateSendPath()
        try await publishWhatIsOn()
    }

    func setVideo(_ on: Bool) async throws(SessionError) {
        if on { try await connect() }
        video = on
        updateSendPath()
        try await publishWhatIsOn()
    }

    func setShare(_ on: Bool) async throws(SessionError) {
        if on { try await connect() }
        share = on
        updateSendPath()
        try await publishWhatIsOn()
    }

    /// Asks the server to turn off `kinds` of another user's media (host, or manager for a
    /// participant). The user's own SDK stops sending them when it hears of it.
    func mute(_ user: UserID, _ kinds: MediaKinds) async throws(SessionError) {
        var request = WireRequest(.muteUser)
        request.user = user
        request.media = kinds.kinds
        _ = try await session.perform(request)
    }

    /// A host or manager turned off `kinds` of this user's media: nothing of them is sent
    /// any more, and nothing publishes them again until the app turns them on itself.
    func mutedByOther(_ kinds: MediaKinds) {
        if kinds.contains(.audio) && audio == .on { audio = .muted }
        if kinds.contains(.video) { video = false }
        if kinds.contains(.screenShare) { share = false }
        updateSendPath()
    }

    /// Follows `events` for a host or manager muting this user (`SessionEvent.mediaMuted`).
    nonisolated func followMutes(_ events: AsyncStream<SessionEvent>) {
        Task { [weak self, session] in
            for await event in events {
                guard case .mediaMuted(let user, let kinds, _) = event, let self else { continue }
                guard user.id == session.published.snapshot(engine: session)?.myself.id else { continue }
                await self.mutedByOther(kinds)
            }
        }
    }

    /// Checks a frame of `kind` and hands it to the connection, without waiting for it to go out.
    nonisolated func send(_ frame: EncodedFrame, as kind: MediaKind) throws(SessionError) {
        let expected = kind == .audio ? MediaCodec.opus : videoCodec
        guard frame.codec == expected else { throw .media("\(kind) frames are \(expected), not \(frame.codec)") }
        let path = sendPath.withLockedValue { $0 }
        guard path.kinds.contains(kind), let connection = path.connection else {
            throw .media("\(kind) is not started\(kind == .audio ? " (or is muted)" : "")")
        }
        guard !frame.bytes.isEmpty else { throw .media("an empty \(frame.codec) frame") }
        if frame.codec == .opus, frame.bytes.count > SendStream.maximumPayloadSize {
            throw .media("an Opus frame of \(frame.bytes.count) bytes: at most \(SendStream.maximumPayloadSize) fit in a packet")
        }
        connection.send(frame, as: kind)
    }

    /// The session ended or was left: the peer goes, and nothing is published any more.
    func close() async {
        ended = true
        connecting?.cancel()
        connecting = nil
        audio = .off
        video = false
        share = false
        let old = connection
        connection = nil
        updateSendPath()
        session.mediaSlots.attach(nil)
        await old?.close()
    }

    /// Makes a new peer in place of the current one, after the session resumed (the server
    /// may have restarted, or the session moved to another node: the old peer may be gone
    /// with it) or when the peer ended on its own (ICE consent lost). A new offer replaces
    /// the server's old peer; what the user publishes is part of the session and survives.
    /// The old peer carries on until the new one is up. Three attempts, a second apart.
    func renew() async {
        guard connection != nil else { return }
        if renewing {
            renewAgain = true
            return
        }
        renewing = true
        defer { renewing = false }
        repeat {
            renewAgain = false
            for attempt in 1...3 {
                guard connection != nil else { return }
                do throws(SessionError) {
                    let fresh = try await Self.makeConnection(engine: self)
                    guard connection != nil else {
                        await fresh.close()
                        return
                    }
                    let old = connection
                    connection = fresh
                    fresh.deliverAudio(audio != .off)
                    session.mediaSlots.attach(fresh)
                    updateSendPath()
                    await old?.close()
                    break
                } catch {
                    if attempt < 3 { try? await Task.sleep(for: .seconds(1)) }
                }
            }
        } while renewAgain
    }

    // MARK: - Private

    private func updateSendPath() {
        var kinds: MediaKinds = []
        if audio == .on { kinds.insert(.audio) }
        if video { kinds.insert(.video) }
        if share { kinds.insert(.screenShare) }
        let path = SendPath(connection: connection, kinds: kinds)
        sendPath.withLockedValue { $0 = path }
    }

    /// Publishes exactly what is on.
    private func publishWhatIsOn() async throws(SessionError) {
        guard let current = session.published.snapshot(engine: session)?.myself.publishing else { throw .notJoined }
        let wanted = sendPath.withLockedValue { $0.kinds }
        guard wanted != current else { return }
        try await session.perform(.publish(wanted))
    }

    /// Makes the peer, once: an offer, the server's answer, then ICE and DTLS over UDP.
    private func connect() async throws(SessionError) {
        if connection != nil { return }
        if ended { throw .notJoined }
        if let connecting {
            connection = try await connecting.value.get()
            return
        }
        let task = Task { [self] () async -> Result<MediaConnection, SessionError> in
            do throws(SessionError) {
                return .success(try await Self.makeConnection(engine: self))
            } catch {
                return .failure(error)
            }
        }
        connecting = task
        let result = await task.value
        connecting = nil
        let made = try result.get()
        guard !ended else {
            // The session ended while the peer was being made.
            await made.close()
            throw .notJoined
        }
        connection = made
        session.mediaSlots.attach(made)
        updateSendPath()
    }

    private static func makeConnection(engine: MediaEngine) async throws(SessionError) -> MediaConnection {
        let (session, frames) = (engine.session, engine.frames)
        let (keyframeRequests, shareKeyframeRequests) = (engine.keyframeRequests, engine.shareKeyframeRequests)
        let certificate: DTLSCertificate
        do {
            certificate = try DTLSCertificate.generate(commonName: "caucus-sdk")
        } catch {
            throw .media("no DTLS certificate: \(error)")
        }
        var ssrcs: Set<UInt32> = []
        while ssrcs.count < 3 { ssrcs.insert(.random(in: 1...UInt32.max)) }
        let (audioSSRC, videoSSRC, shareSSRC) = (ssrcs.removeFirst(), ssrcs.removeFirst(), ssrcs.removeFirst())
        // mids 0, 1, 2: what this user sends (audio, camera, screen share), then receive-only slots.
        let sections: [SDPOffer.Section] =
            [.publishing(.audio, ssrc: audioSSRC), .publishing(.video, ssrc: videoSSRC), .publishing(.video, ssrc: shareSSRC)]
            + Array(repeating: .receiving(.audio), count: audioSlots - 1) + Array(repeating: .receiving(.video), count: videoSlots - 1)
        let screenShareMids: Set<String> = ["2"]
        var offer = SDPOffer(sections: sections, credentials: ICECredentials.random(), fingerprint: certificate.fingerprint)
        // RFC 6464 levels on what this user sends, so the server can rank it as a speaker.
        offer.audioLevelID = 1
        offer.videoCodec = engine.videoCodec == .h264 ? .h264 : .vp8
        var request = WireRequest(.mediaOffer)
        request.sdp = offer.text
        request.screenShareMids = Array(screenShareMids)
        session.mediaSlots.forget()
        guard case .mediaAnswer(let text) = try await session.perform(request) else {
            throw .invalidResponse("the reply to mediaOffer carries no answer")
        }
        let answer: SessionDescription
        do {
            answer = try SessionDescription(parsing: text)
        } catch {
            throw .invalidResponse("the server's answer is not SDP the SDK reads: \(error)")
        }
        return try await MediaConnection.open(
            offer: offer, videoCodec: engine.videoCodec, screenShareMids: screenShareMids, certificate: certificate, answer: answer,
            sending: [.audio: audioSSRC, .video: videoSSRC, .screenShare: shareSSRC], deliver: { frames.yield($0) },
            keyframeRequested: { ($0 == .screenShare ? shareKeyframeRequests : keyframeRequests).yield(()) },
            lost: { [weak engine] in
                guard let engine else { return }
                Task { await engine.renew() }
            })
    }
}
