import CaucusCore
import CaucusMedia
import CaucusSFU

/// What a session remembers of its media routing.
struct MediaRoutingState {
    /// Users who offered media (they get slot maps); until the first, nothing is routed.
    var offered: Set<UserID> = []
    /// Each user's connected media peer (ICE and DTLS done), by the number its answer gave it,
    /// until the peer ends on its own (`MediaPeerLife`), a new offer replaces it, or the user
    /// leaves. A reconnecting user with one here has its media kept: still forwarded from it
    /// and to it (`SessionState.mediaSources`).
    var livePeers: [UserID: UInt64] = [:]
    /// Where each user was when the media router last heard of it (for the audience it leaves).
    var locations: [UserID: Location] = [:]
    /// Routing waiting for the events that explain it: each handover goes to the media loop
    /// once every event through `through` has been delivered, never before.
    var held: [(through: Int, handover: MediaHandover)] = []
    /// How many of `held`'s first handovers the media loop has switched to already, their
    /// slot maps waiting for `releaseRouting`.
    var switched = 0
    /// Whether the media loop was last handed a recording picture with something recorded
    /// (`SessionActor+Recording.swift`): one more, empty, goes when recording stops.
    var recordingHandedOver = false
}

/// Routing is an output of the session, ordered after the events that explain it: a batch of
/// events whose `MediaRoutingImpact` is not empty gets its handover computed when it goes to
/// the store (the state then is the state at its last event) and handed to the media loop
/// once it is stored and sent. Both go through `eventLoop.execute` on each connection's loop,
/// the events first, so a client has them before the slot map that follows from them.
extension SessionActor {
    /// A user offered media: its slots are filled from the session as it is now. The first
    /// offer hands over every user (nothing was routed before); later ones only the offerer.
    /// Returns whether routing was handed over (the media loop then sends the slot map).
    @discardableResult
    func routeMedia(offeredBy user: UserID, peer: UInt64) -> Bool {
        // The peer it replaces is closed; the new one counts once it connects (which may have
        // been reported already).
        if mediaRouting.livePeers[user] != peer { mediaRouting.livePeers[user] = nil }
        let impact = mediaRouting.offered.isEmpty ? MediaRoutingImpact(everyone: true) : MediaRoutingImpact(subscribers: [user])
        mediaRouting.offered.insert(user)
        holdRouting(after: impact, through: pipeline.seq)
        // A session taken over or restored records again from its publishers' first media.
        handOverRecording()
        return true
    }

    /// `user`'s media peer `peer` connected (`alive`), or ended on its own (consent lost, say).
    /// A connected user's routing does not change (its SDK makes a new peer after a loss); a
    /// reconnecting user's media is forwarded again, both ways, or stops being forwarded and
    /// frees the slots it held for others.
    func mediaPeer(_ peer: UInt64, of user: UserID, alive: Bool) {
        guard let seat = state.users[user] else { return }
        if alive {
            mediaRouting.livePeers[user] = peer
        } else {
            guard mediaRouting.livePeers[user] == peer else { return }
            mediaRouting.livePeers[user] = nil
        }
        guard !seat.presence.isConnected else { return }
        holdRouting(after: MediaRoutingImpact(subscribers: [user], publishers: [user]), through: pipeline.seq)
    }

    /// Whether `user`'s media peer lives (a resume keeps it: the resume reply's `mediaKept`).
    func hasLivePeer(_ user: UserID) -> Bool { mediaRouting.livePeers[user] != nil }

    /// Computes the routing `impact` calls for from the state now, and hands it to the media
    /// loop once every event through `through` is delivered: a slot map never reaches a client
    /// before the events that explain it. Events that change nobody's media (chat, timers,
    /// plans) hand over nothing, and the router recomputes only the users named.
    func holdRouting(after impact: MediaRoutingImpact, through: Int) {
        guard !mediaRouting.offered.isEmpty, !impact.isNone else { return }
        let handover = mediaHandover(after: impact)
        guard !handover.isEmpty else { return }
        mediaRouting.held.append((through, handover))
        releaseRouting()
    }

    /// Lets the media loop switch forwarding to the routing whose events are now durable,
    /// before those events are queued for sending (a breakout's start writes a large event to
    /// every connection, and the media would wait behind those writes); their slot maps wait
    /// for `releaseRouting`, which runs once the events are queued.
    func switchDurableRouting() {
        let durable = pipeline.durableSeq
        for entry in mediaRouting.held.dropFirst(mediaRouting.switched) {
            guard entry.through <= durable else { break }
            environment.media.switchRouting(id, entry.handover)
            mediaRouting.switched += 1
        }
    }

    /// Hands over the routing whose events are all delivered, in order, and sends the slot
    /// maps of what was switched already. Roster news held for a user with media (a publisher
    /// reconnecting, say) goes out first: its slot map may follow from it.
    func releaseRouting() {
        let delivered = pipeline.durableSeq
        var released = false
        while let first = mediaRouting.held.first, first.through <= delivered {
            mediaRouting.held.removeFirst()
            for user in first.handover.users.keys {
                let id = UserID(user)
                guard mediaRouting.offered.contains(id), let connection = pipeline.connections[id] else { continue }
                perform(pipeline.flushHeldRoster(of: connection))
            }
            if mediaRouting.switched > 0 {
                mediaRouting.switched -= 1
                released = true
            } else {
                environment.media.route(id, first.handover)
            }
        }
        if released { environment.media.releaseSlotMaps(id) }
    }

    /// Who may receive what now, for the users `impact` reaches: one pass per receiving location
    /// touched (everyone there, and everyone listening in to it, receives the same streams but
    /// its own, after the voice broadcast: `SessionState.mediaSources(for:among:)`). A
    /// reconnecting user whose peer lives counts as connected (`livePeers`).
    private func mediaHandover(after impact: MediaRoutingImpact) -> MediaHandover {
        let state = pipeline.state
        let affected = state.usersWithChangedMedia(after: impact, previousLocation: { mediaRouting.locations[$0] })
            ?? Set(state.users.keys).union(mediaRouting.locations.keys)
        var byLocation: [Location: [MediaSource]] = [:]
        var handover = MediaHandover()
        let live = mediaRouting.livePeers
        let mediaKept = { (user: UserID) in live[user] != nil }
        let broadcastVoice = state.broadcastVoice(mediaKept: mediaKept)
        for id in affected {
            guard let user = state.users[id] else {
                mediaRouting.locations[id] = nil
                mediaRouting.offered.remove(id)
                mediaRouting.livePeers[id] = nil
                handover.users[id.rawValue] = MediaHandover.Entry(eligible: [], location: nil, connection: nil)
                continue
            }
            mediaRouting.locations[id] = user.location
            // A listener's speakers are those of the room it hears.
            let receiving = state.receivingLocation(of: id)
            var streams: [PublishedStream] = []
            if state.forwardsMedia(of: user, mediaKept: mediaKept) {
                let located = byLocation[receiving] ?? state.mediaSources(in: receiving, mediaKept: mediaKept)
                byLocation[receiving] = located
                streams = state.mediaSources(for: id, among: located, broadcast: broadcastVoice).compactMap { source in
                    StreamKind(rawValue: source.kind.rawValue).map { PublishedStream(publisher: source.publisher.rawValue, kind: $0) }
                }
            }
            // The broadcast heads `streams` when there is one; it keeps a slot whoever is louder.
            let broadcast = broadcastVoice.flatMap { $0.publisher == id ? nil : PublishedStream(publisher: $0.publisher.rawValue, kind: .audio) }
            handover.users[id.rawValue] = MediaHandover.Entry(
                eligible: streams, location: receiving, connection: pipeline.connections[id]?.connection, pinned: broadcast)
        }
        return handover
    }

}
