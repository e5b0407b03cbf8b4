import CaucusCore

/// This user's media as a pure state machine: what is switched on (audio, muted or not;
/// camera; screen share), the media peer's life (made once, on the first switch that needs
/// it; made again after a resume or when it ends on its own, three tries a second apart,
/// another renewal asked for meanwhile coalesced into one more; gone with the session, and
/// made afresh for the next join of the same session object), and the calls waiting for the
/// peer. It performs nothing: each input returns the actions
/// `MediaEngine` carries out (make a peer, use or close one, set what goes out, publish,
/// complete a call). Peers and calls are named by numbers the shell hands out.
struct MediaMachine: Sendable {
    enum AudioState: Equatable, Sendable { case off, on, muted }

    /// One helper call: switch one kind.
    enum Switch: Equatable, Sendable {
        case audio(AudioState)
        case video(Bool)
        case share(Bool)

        var needsPeer: Bool {
            switch self {
            case .audio(let state): state != .off
            case .video(let on), .share(let on): on
            }
        }
    }

    enum Peer: Equatable, Sendable {
        case none
        /// The first peer is being made; these calls wait for it.
        case making(waiting: [Waiting])
        case up(PeerID)
        /// The session is over for this user: no peer is made any more, until the session
        /// object joins again (`joined`).
        case ended
    }

    struct Waiting: Equatable, Sendable {
        let change: Switch
        let ticket: Ticket
    }

    /// A renewal under way: its try (1…3), and whether another was asked for meanwhile.
    struct Renewal: Equatable, Sendable {
        var attempt: Int
        var again: Bool
    }

    typealias PeerID = Int

    struct Ticket: Hashable, Sendable {
        let number: Int
    }

    enum Action: Equatable, Sendable {
        /// Make the first peer, then report `peerMade` or `peerFailed`.
        case makePeer
        /// Stop making the first peer (its report, if it comes, is answered with `close`).
        case cancelMaking
        /// Make a peer to replace the current one, after `delay`; report `replacementMade` or
        /// `replacementFailed` with `attempt`.
        case makeReplacement(attempt: Int, after: Duration)
        /// From now on this peer carries the media and gets the slot maps.
        case use(PeerID)
        /// No peer any more: slot maps go nowhere.
        case detach
        case close(PeerID)
        /// Whether the peer delivers received audio.
        case deliverAudio(Bool)
        /// The kinds whose frames go out now.
        case send(MediaKinds)
        /// Tell the server this user publishes exactly `kinds` (if that is news), then complete `ticket`.
        case publish(MediaKinds, Ticket)
        case fail(Ticket, SessionError)
    }

    static let renewalTries = 3
    static let renewalPause = Duration.seconds(1)

    private(set) var audio = AudioState.off
    private(set) var video = false
    private(set) var share = false
    private(set) var peer = Peer.none
    private(set) var renewal: Renewal?
    /// The join this media belongs to (counted by `MediaSlotRelay`). Reports and notices of an
    /// earlier join (a peer it was making, its end heard late) change nothing of a later one.
    private(set) var session = 0

    /// The kinds whose frames go out (audio only while unmuted).
    var sending: MediaKinds {
        var kinds: MediaKinds = []
        if audio == .on { kinds.insert(.audio) }
        if video { kinds.insert(.video) }
        if share { kinds.insert(.screenShare) }
        return kinds
    }

    // MARK: - The helpers' calls

    /// A helper's call, made during join `session` (nil: the machine's own).
    mutating func set(_ change: Switch, ticket: Ticket, session number: Int? = nil) -> [Action] {
        let fresh = joined(number ?? session)
        switch peer {
        case .ended:
            return fresh + [.fail(ticket, .notJoined)]
        case .none where change.needsPeer:
            peer = .making(waiting: [Waiting(change: change, ticket: ticket)])
            return fresh + [.makePeer]
        case .making(let waiting) where change.needsPeer:
            peer = .making(waiting: waiting + [Waiting(change: change, ticket: ticket)])
            return fresh
        case .none, .making, .up:
            return fresh + apply(change, ticket: ticket)
        }
    }

    /// The session object joined again (join `number`, later than this media's): media starts
    /// afresh, nothing on, no peer (the next switch that needs one makes it). Whatever the
    /// earlier join left (its end not heard yet) is closed first.
    mutating func joined(_ number: Int) -> [Action] {
        guard number > session else { return [] }
        var closing: [Action] = []
        switch peer {
        case .making, .up: closing = sessionEnded()
        case .none, .ended: break
        }
        session = number
        peer = .none
        renewal = nil
        audio = .off
        video = false
        share = false
        return closing
    }

    private mutating func apply(_ change: Switch, ticket: Ticket) -> [Action] {
        var actions: [Action] = []
        switch change {
        case .audio(let state):
            audio = state
            actions.append(.deliverAudio(state != .off))
        case .video(let on): video = on
        case .share(let on): share = on
        }
        return actions + [.send(sending), .publish(sending, ticket)]
    }

    /// A host or manager turned off `kinds` of this user's media (the server has it so
    /// already): they stop going out, and stay off, so that the next switch does not publish
    /// them again; only the user turns them on. Muted audio keeps delivering others' audio.
    mutating func mutedByOther(_ kinds: MediaKinds) -> [Action] {
        guard peer != .ended else { return [] }
        if kinds.contains(.audio) && audio == .on { audio = .muted }
        if kinds.contains(.video) { video = false }
        if kinds.contains(.screenShare) { share = false }
        return [.send(sending)]
    }

    // MARK: - The first peer

    /// The first peer is up; `number` is the join it was made for (nil: the machine's own).
    mutating func peerMade(_ id: PeerID, session number: Int? = nil) -> [Action] {
        guard case .making(let waiting) = peer, (number ?? session) == session else {
            // The session ended (or was joined again) while the peer was being made.
            return [.close(id)]
        }
        peer = .up(id)
        var actions: [Action] = [.use(id), .send(sending)]
        for call in waiting { actions += apply(call.change, ticket: call.ticket) }
        return actions
    }

    mutating func peerFailed(_ error: SessionError, session number: Int? = nil) -> [Action] {
        guard case .making(let waiting) = peer, (number ?? session) == session else { return [] }
        peer = .none
        return waiting.map { .fail($0.ticket, error) }
    }

    // MARK: - Renewal

    /// The session resumed on a new connection (the server may have restarted, or the session
    /// moved to another node: the old peer may be gone with it), or the peer ended on its own
    /// (ICE consent lost): a new offer replaces the server's old peer. What the user publishes
    /// is part of the session and survives; the old peer carries on until the new one is up.
    mutating func renew(session number: Int? = nil) -> [Action] {
        guard case .up = peer, (number ?? session) == session else { return [] }
        if renewal != nil {
            renewal?.again = true
            return []
        }
        renewal = Renewal(attempt: 1, again: false)
        return [.makeReplacement(attempt: 1, after: .zero)]
    }

    /// The session resumed on a new connection. With `mediaKept` the server still has this
    /// user's peer and forwarded its media all along: the peer is kept, if it is up here and no
    /// renewal is replacing it. Otherwise (a restarted server, another node, a peer the server
    /// lost) it is renewed.
    /// An earlier join's resume (`number`) changes nothing.
    mutating func resumed(mediaKept: Bool, session number: Int? = nil) -> [Action] {
        guard (number ?? session) == session else { return [] }
        if mediaKept, case .up = peer, renewal == nil { return [] }
        return renew(session: number)
    }

    /// Peer `id` ended on its own (ICE consent lost, or the server closed it). It counts only
    /// as the peer in use, and only when no renewal is replacing it already: the server closes a
    /// peer as soon as it answers the offer that replaces it, so the peer a renewal replaces
    /// always ends this way, and counting that as a loss renewed again and again (a new peer
    /// every few tens of milliseconds after a reconnect, each asked for a keyframe).
    mutating func peerLost(_ id: PeerID) -> [Action] {
        guard case .up(let current) = peer, current == id, renewal == nil else { return [] }
        return renew()
    }

    mutating func replacementMade(_ id: PeerID, attempt: Int, session number: Int? = nil) -> [Action] {
        guard case .up(let old) = peer, let current = renewal, current.attempt == attempt, (number ?? session) == session else {
            return [.close(id)]
        }
        peer = .up(id)
        return [.use(id), .deliverAudio(audio != .off), .send(sending), .close(old)] + renewalOver(current)
    }

    mutating func replacementFailed(attempt: Int, session number: Int? = nil) -> [Action] {
        guard case .up = peer, var current = renewal, current.attempt == attempt, (number ?? session) == session else { return [] }
        guard attempt < Self.renewalTries else { return renewalOver(current) }
        current.attempt += 1
        renewal = current
        return [.makeReplacement(attempt: current.attempt, after: Self.renewalPause)]
    }

    private mutating func renewalOver(_ current: Renewal) -> [Action] {
        guard current.again else {
            renewal = nil
            return []
        }
        renewal = Renewal(attempt: 1, again: false)
        return [.makeReplacement(attempt: 1, after: .zero)]
    }

    // MARK: - The end

    /// The session ended or was left (join `number`; nil: the machine's own): the peer goes,
    /// and nothing is published any more. The end of an earlier join changes nothing.
    mutating func sessionEnded(session number: Int? = nil) -> [Action] {
        if let number {
            guard number >= session else { return [] }
            session = number
        }
        var actions: [Action] = []
        switch peer {
        case .making(let waiting):
            actions.append(.cancelMaking)
            actions += waiting.map { .fail($0.ticket, .notJoined) }
        case .up(let id):
            actions.append(.close(id))
        case .none, .ended:
            break
        }
        peer = .ended
        renewal = nil
        audio = .off
        video = false
        share = false
        return [.send([]), .detach] + actions
    }
}
