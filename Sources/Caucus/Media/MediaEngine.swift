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

    typealias AudioState = MediaMachine.AudioState

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
    /// Where each offer's sending SSRCs come from (tests queue some, to collide on purpose).
    nonisolated let ssrcs = NIOLockedValueBox(SSRCPicker())

    /// What is on and the peer's life: decided there, carried out here.
    private var machine = MediaMachine()
    private var peers: [MediaMachine.PeerID: MediaConnection] = [:]
    private var nextPeer = 0
    /// The peer that carries the media now.
    private var current: MediaConnection?
    private var making: Task<Void, Never>?
    private var waiting: [MediaMachine.Ticket: CheckedContinuation<Result<Void, SessionError>, Never>] = [:]
    private var nextTicket = 0

    var audio: AudioState { machine.audio }
    var video: Bool { machine.video }
    var share: Bool { machine.share }

    init(session: SessionEngine) {
        self.session = session
        videoCodec = session.configuration.videoCodec.codec
        session.mediaSlots.whenSessionEnds { [weak self] join in
            guard let self else { return }
            Task { await self.close(join: join) }
        }
        session.mediaSlots.whenResumed { [weak self] join, mediaKept in
            guard let self else { return }
            Task { await self.resumed(join: join, mediaKept: mediaKept) }
        }
    }

    // MARK: - From the helpers

    func setAudio(_ state: AudioState) async throws(SessionError) { try await set(.audio(state)) }

    func setVideo(_ on: Bool) async throws(SessionError) { try await set(.video(on)) }

    func setShare(_ on: Bool) async throws(SessionError) { try await set(.share(on)) }

    private func set(_ change: MediaMachine.Switch) async throws(SessionError) {
        let result = await withCheckedContinuation { continuation in
            nextTicket += 1
            let ticket = MediaMachine.Ticket(number: nextTicket)
            waiting[ticket] = continuation
            // The join under way now: after a leave and a new join, media starts afresh.
            perform(machine.set(change, ticket: ticket, session: session.mediaSlots.join))
        }
        try result.get()
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
        perform(machine.mutedByOther(kinds))
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

    /// Join `join` ended or was left: the peer goes, and nothing is published any more.
    func close(join: Int) {
        perform(machine.sessionEnded(session: join))
    }

    /// Join `join` resumed on a new connection: the peer is made again (`MediaMachine.resumed`),
    /// unless the server kept it and it is up here too, in which case the media it carried all
    /// along goes on with no new offer, and the slot map comes again on the new connection.
    func resumed(join: Int, mediaKept: Bool) {
        perform(machine.resumed(mediaKept: mediaKept, session: join))
    }

    /// Peer `id` ended on its own (`MediaMachine.peerLost`).
    func peerLost(_ id: MediaMachine.PeerID) {
        perform(machine.peerLost(id))
    }

    // MARK: - Carrying out the machine's actions

    private func perform(_ actions: [MediaMachine.Action]) {
        for action in actions { perform(action) }
    }

    private func perform(_ action: MediaMachine.Action) {
        switch action {
        case .makePeer:
            let join = machine.session
            making = Task {
                let result = await Self.made(engine: self)
                if machine.session == join { self.making = nil }
                switch result {
                case .success(let id): perform(machine.peerMade(id, session: join))
                case .failure(let error): perform(machine.peerFailed(error, session: join))
                }
            }
        case .cancelMaking:
            making?.cancel()
        case .makeReplacement(let attempt, let delay):
            let join = machine.session
            Task {
                if delay > .zero { try? await Task.sleep(for: delay) }
                switch await Self.made(engine: self) {
                case .success(let id): perform(machine.replacementMade(id, attempt: attempt, session: join))
                case .failure: perform(machine.replacementFailed(attempt: attempt, session: join))
                }
            }
        case .use(let id):
            current = peers[id]
            session.mediaSlots.attach(current)
        case .detach:
            current = nil
            session.mediaSlots.attach(nil)
        case .close(let id):
            if let peer = peers.removeValue(forKey: id) {
                if current === peer { current = nil }
                Task { await peer.close() }
            }
        case .deliverAudio(let on):
            current?.deliverAudio(on)
        case .send(let kinds):
            let path = SendPath(connection: current, kinds: kinds)
            sendPath.withLockedValue { $0 = path }
        case .publish(let kinds, let ticket):
            Task {
                let result: Result<Void, SessionError>
                do throws(SessionError) {
                    try await publish(kinds)
                    result = .success(())
                } catch {
                    result = .failure(error)
                }
                waiting.removeValue(forKey: ticket)?.resume(returning: result)
            }
        case .fail(let ticket, let error):
            waiting.removeValue(forKey: ticket)?.resume(returning: .failure(error))
        }
    }

    /// Publishes exactly `kinds`, unless the session says so already.
    private func publish(_ kinds: MediaKinds) async throws(SessionError) {
        guard let current = session.published.snapshot(engine: session)?.myself.publishing else { throw .notJoined }
        guard kinds != current else { return }
        try await session.perform(.publish(kinds))
    }

    /// A new peer, numbered.
    private static func made(engine: MediaEngine) async -> Result<MediaMachine.PeerID, SessionError> {
        // Numbered before it exists, so that its loss names it.
        let id = await engine.nextPeerID()
        do throws(SessionError) {
            let connection = try await makeConnection(engine: engine, id: id)
            await engine.register(connection, as: id)
            return .success(id)
        } catch {
            return .failure(error)
        }
    }

    private func nextPeerID() -> MediaMachine.PeerID {
        nextPeer += 1
        return nextPeer
    }

    private func register(_ connection: MediaConnection, as id: MediaMachine.PeerID) {
        peers[id] = connection
    }

    private static func makeConnection(engine: MediaEngine, id: MediaMachine.PeerID) async throws(SessionError) -> MediaConnection {
        let session = engine.session
        let certificate: DTLSCertificate
        do {
            certificate = try DTLSCertificate.generate(commonName: "caucus-sdk")
        } catch {
            throw .media("no DTLS certificate: \(error)")
        }
        let screenShareMids: Set<String> = ["2"]
        var attempt = 0
        while true {
            attempt += 1
            let (audioSSRC, videoSSRC, shareSSRC) = engine.ssrcs.withLockedValue { $0.three() }
            // mids 0, 1, 2: what this user sends (audio, camera, screen share), then receive-only slots.
            let sections: [SDPOffer.Section] =
                [.publishing(.audio, ssrc: audioSSRC), .publishing(.video, ssrc: videoSSRC), .publishing(.video, ssrc: shareSSRC)]
                + Array(repeating: .receiving(.audio), count: audioSlots - 1) + Array(repeating: .receiving(.video), count: videoSlots - 1)
            var offer = SDPOffer(sections: sections, credentials: ICECredentials.random(), fingerprint: certificate.fingerprint)
            // RFC 6464 levels on what this user sends, so the server can rank it as a speaker.
            offer.audioLevelID = 1
            offer.videoCodec = engine.videoCodec == .h264 ? .h264 : .vp8
            var request = WireRequest(.mediaOffer)
            request.sdp = offer.text
            request.screenShareMids = Array(screenShareMids)
            session.mediaSlots.forget()
            let reply: ReplyResult
            do throws(SessionError) {
                reply = try await session.perform(request)
            } catch where error.serverError?.code == CaucusError.Code.mediaOfferRefused.rawValue && attempt == 1 {
                // Refused: most likely an SSRC another user of the session sends from (about
                // one chance in a thousand for a session of a thousand). Offered once more with
                // SSRCs of its own; an offer refused for another reason is refused again.
                continue
            }
            guard case .mediaAnswer(let text) = reply else {
                throw .invalidResponse("the reply to mediaOffer carries no answer")
            }
            return try await connect(
                engine: engine, id: id, offer: offer, answer: text, certificate: certificate, screenShareMids: screenShareMids,
                sending: [.audio: audioSSRC, .video: videoSSRC, .screenShare: shareSSRC])
        }
    }

    private static func connect(
        engine: MediaEngine, id: MediaMachine.PeerID, offer: SDPOffer, answer text: String, certificate: DTLSCertificate,
        screenShareMids: Set<String>, sending: [MediaKind: UInt32]
    ) async throws(SessionError) -> MediaConnection {
        let (frames, keyframeRequests, shareKeyframeRequests) = (engine.frames, engine.keyframeRequests, engine.shareKeyframeRequests)
        let answer: SessionDescription
        do {
            answer = try SessionDescription(parsing: text)
        } catch {
            throw .invalidResponse("the server's answer is not SDP the SDK reads: \(error)")
        }
        return try await MediaConnection.open(
            offer: offer, videoCodec: engine.videoCodec, screenShareMids: screenShareMids, certificate: certificate, answer: answer,
            sending: sending, deliver: { frames.yield($0) },
            keyframeRequested: { ($0 == .screenShare ? shareKeyframeRequests : keyframeRequests).yield(()) },
            lost: { [weak engine] in
                guard let engine else { return }
                Task { await engine.peerLost(id) }
            })
    }
}
