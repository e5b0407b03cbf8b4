import CaucusMedia

/// One session's forwarding, as a sans-IO engine (input and time in, output out): the
/// subscribers' slots and rewriters with their renumbering and RTX (their down-tracks), per
/// publisher stream what loss repair and layer choice need (its up-track: format, recent
/// packets, upstream losses, keyframe requests, simulcast layers), the latest "who may receive
/// what" the session handed over, and the `RoutingTable` the packet path reads. Fed handovers,
/// decrypted packets and the time (`ForwardingEngine+Events.swift`); what it asks for waits in
/// its outputs (``ForwardingOutput``). It touches no socket, clock or signalling connection:
/// the server's media loop runs one per session and does the I/O. Not thread-safe: one owner
/// (the server confines it to the session's media loop).
///
/// Users are plain `Int`s, locations numbers the shell gives. The packet path (forwarding,
/// RTCP, retransmissions) is in `ForwardingEngine+PacketPath.swift`; a subscriber's state in
/// `ForwardingEngine+Subscriber.swift`.
public final class ForwardingEngine {
    var subscribers: [Int: Subscriber] = [:]
    /// Recomputations so far (what `caucus_media_routing_recomputations_total` counts).
    public private(set) var recomputations = 0
    /// Per user, what the session last handed over (the streams it may receive now, in the
    /// session's order; the one pinned for it; its channel; where it is: a location's speakers
    /// are ranked together) and its slots as last recomputed (``EngineUsers``).
    private(set) var records = EngineUsers()
    /// Each location's speakers, fed by the audio levels of its publishers' packets.
    var speakers: LocationSpeakers
    /// Each incoming SSRC's up-track (the stream it carries, its format, what repair keeps),
    /// from the publishers' offers and the simulcast layers learned.
    var upTracks: [UInt32: UpTrack] = [:]
    /// Each stream's incoming SSRC (a simulcast publication's: the layer it forwards).
    private(set) var ssrcsByStream: [PublishedStream: UInt32] = [:]
    var catalog = FormatCatalog()
    /// Whether a stream plays in a slot format, as found since the streams were last learned
    /// (`ForwardingEngine+Playability.swift`): a new publisher in a main session of a thousand
    /// recomputes a thousand subscribers, each of whom may receive the thousand streams, and a
    /// sliced handover recomputes them a few at a time.
    var playability: [Playability.Key: Playability] = [:]
    /// Each slot's incoming SSRCs and the table the packet path reads (``SlotRoutes``). Changed
    /// route by route, between two packets: the packet path runs on this same loop, so it
    /// always reads a whole table.
    var routes = SlotRoutes()
    /// Users a sliced handover has yet to recompute (`ForwardingEngine+SlicedRouting.swift`).
    var pendingRouting = PendingRouting()
    var keyframeRequests = KeyframeRequests()
    var upstreamNACKs = UpstreamNACKs()
    /// When the next upstream ask falls due (part of ``nextDeadline``).
    var repairDeadline: Duration?
    /// When the periodic work falls due (``handleTimeout(now:slice:)``): from the first peer on.
    var periodic: PeriodicSchedule
    /// Publishers' RTX SSRCs → what their packets restore (``RetransmissionSources``).
    var retransmissionSources = RetransmissionSources()
    /// Transport-cc feedback to the publishers that negotiated it (``PublisherFeedback``).
    var publisherFeedback = PublisherFeedback()
    /// Simulcast publications, their layers' SSRCs as learned, and when layers were last ranked
    /// (``SimulcastLayers``).
    var simulcast = SimulcastLayers()
    /// Each subscriber's downlink estimate and layer choices, where it reports what arrives
    /// (``SubscriberDownlinks``).
    var downlinks = SubscriberDownlinks()
    /// Users whose streams go to the shell for recording, and by SSRC what the tap hands over
    /// of each of their streams (``RecordingTaps``).
    var recording = RecordingTaps()

    /// Slot maps, RTCP and copies waiting for the shell (``pollOutput(_:)``), and the counts.
    var outputs: [ForwardingOutput] = []
    /// The storage the last poll emptied, kept for the outputs after the next (``pollOutput(_:)``).
    var spareOutputs: [ForwardingOutput] = []
    /// What a user's RTCP calls for, kept between datagrams with its storage (``receive(rtcp:from:at:)``).
    var routedRTCP = RoutedRTCP()
    /// The numbers of the NACK being answered so far, kept with its storage (``answer(_:lost:from:now:into:)``).
    var nackNumbersAnswered: [UInt16] = []
    public internal(set) var counters = ForwardingCounters()

    /// `periodicInterval`: how often the periodic work runs (``nextDeadline``).
    public init(speakers: SpeakerRanking.Configuration = .standard, periodicInterval: Duration = ForwardingEngine.standardPeriodicInterval) {
        self.speakers = LocationSpeakers(configuration: speakers)
        periodic = PeriodicSchedule(interval: periodicInterval)
    }

    public var isEmpty: Bool { subscribers.isEmpty }

    /// A user's new peer: its slots are filled, and so are the slots of those who may receive
    /// what it publishes (its SSRCs are new; in slices of about `slice` when they are many).
    func add(_ user: Int, plan: MediaSlotPlan, now: Duration, slice: Int = .max) -> Changes {
        if let old = subscribers[user] { unroute(user, old) }
        periodic.start(at: now)
        retransmissionSources.forget(user)
        simulcast.forget(user)
        subscribers[user] = Subscriber(plan: plan, catalog: &catalog)
        retransmissionSources.learn(user, plan: plan)
        publisherFeedback.learn(user, plan: plan)
        simulcast.learn(user, plan: plan)
        downlinks.learn(user, plan: plan)
        records.assign(nil, to: user)
        learnStreams()
        var changes = recompute(receiversOf: user, and: [user], now: now, slice: slice)
        // Its first slot map comes with the speakers it follows.
        if let location = records.location(of: user), !speakers.speakers(in: location).isEmpty {
            announce(Array(speakers.speakers(in: location)), to: [user], in: &changes)
        }
        return changes
    }

    func remove(_ user: Int, now: Duration, slice: Int = .max) -> Changes {
        guard let old = subscribers.removeValue(forKey: user) else { return Changes() }
        unroute(user, old)
        retransmissionSources.forget(user)
        publisherFeedback.forget(user)
        simulcast.forget(user)
        downlinks.forget(user)
        records.assign(nil, to: user)
        learnStreams()
        return recompute(receiversOf: user, and: [], now: now, slice: slice)
    }

    /// The session's handover after events, every user it changed recomputed at once.
    func update(_ handover: RoutingHandover, now: Duration) -> Changes {
        update(handover, now: now, slice: .max)
    }

    /// Takes in a handover: the users it names get their new eligibility, location and
    /// connection. Returns those whose entry differs from what the router has (only they need
    /// recomputing; the session names a superset: a breakout plan committed names everyone in
    /// a full main session, whose thousand users' slots, each over a thousand candidates, took
    /// 200 ms of the media loop and held up the next replies on its thread), and those among
    /// them who arrived somewhere new.
    func apply(_ handover: RoutingHandover) -> (changed: [Int], arrivals: [Int]) {
        var arrivals: [Int] = []
        var changed: [Int] = []
        for (user, entry) in handover.users {
            let old = records.location(of: user)
            let (differs, move) = records.take(entry, for: user)
            if differs { changed.append(user) }
            if let old { speakers.membersChanged(in: old) }
            if let new = entry.location { speakers.membersChanged(in: new) }
            // Its voice no longer counts where it was; a ranking nobody is in goes.
            if let move, let left = move.left { speakers.left(user, from: left, emptied: move.emptied) }
            if move?.arrived != nil { arrivals.append(user) }
        }
        // In the users' order, not the dictionary's: slices take them in this order.
        return (changed.sorted(), arrivals)
    }

    /// Reassigns `users`' slots (those with a peer) from their eligibility and their location's
    /// speaker ranking, re-points the rewriters whose source changed, changes their routes in
    /// the table, and says which keyframes and slot maps to send. Costs the users named.
    func recompute(_ users: some Collection<Int>, now: Duration) -> Changes {
        recomputations += 1
        var changes = Changes(recomputed: 1)
        var next: [Int: SlotAssignment] = [:]
        var unplayable: [Int: [PublishedStream]] = [:]
        // Per user with a video slot, what it may decode: searched once per switching slot.
        var decodable: [Int: [PublishedStream]] = [:]
        for user in users {
            guard let subscriber = subscribers[user] else { continue }
            let (audio, video, screenShare) =
                (subscriber.receiveFormats[.audio], subscriber.receiveFormats[.video], subscriber.receiveFormats[.screenShare])
            var streams: [PublishedStream] = []
            for stream in records.eligible(user) ?? [] {
                // A subscriber with no slot of the kind simply does not receive it; one whose
                // slots cannot carry the publisher's codec is told so in its slot map.
                let slotFormat: Int? = switch stream.kind {
                case .audio: audio
                case .video: video
                case .screenShare: screenShare
                }
                guard let slotFormat else { continue }
                let key = Playability.Key(stream: stream, slotFormat: slotFormat)
                let playable: Playability
                if let known = playability[key] {
                    playable = known
                } else {
                    playable = findPlayability(of: stream, in: slotFormat)
                    playability[key] = playable
                }
                switch playable {
                case .notPublished: continue
                case .playable: streams.append(stream)
                case .unplayable: unplayable[user, default: []].append(stream)
                }
            }
            // Only a slot that switches at a keyframe asks what else is decodable.
            if subscriber.plan.receiveSlots.contains(where: { $0.slot.kind.needsKeyframe }) { decodable[user] = streams }
            let order = records.location(of: user).map { speakers.order(in: $0) } ?? .empty
            var assignment = SlotAssignment.assign(
                eligible: streams, order: order, layout: subscriber.plan.layout, previous: records.assignment(of: user) ?? .empty,
                pinned: records.pinned(user))
            // Told of its slots on a channel it has since lost (it reconnects while its peer
            // lives on): a slot keeps the publisher it was told of or goes empty, since it
            // could not be told of another, whose media it would show as the old one's.
            if records.channel(of: user) == nil, subscriber.sentTo != nil {
                assignment = assignment.keeping { slot, stream in subscriber.toldPublisher(in: slot) == stream.publisher }
            }
            next[user] = assignment
        }
        changes.subscribersRecomputed = next.count
        let before = next.keys.reduce(into: [Int: SlotAssignment]()) { $0[$1] = records.assignment(of: $1) ?? .empty }
        // A stream's keyframe is asked of the SSRC each subscriber shows (a simulcast layer of its own).
        var keyframeSources = Set(RoutingUpdate(from: before, to: next).keyframeRequests.compactMap { stream in
            ssrcsByStream[stream].map { KeyframeSource(publisher: stream.publisher, ssrc: $0) }
        })
        // Every slot is re-pointed, not only those the update names: a publisher's new offer
        // changes its SSRC without changing any assignment.
        for (user, assignment) in next {
            let subscriber = subscribers[user]!
            // By the plan's slots: iterating the rewriters while changing one would copy them all.
            for receiveSlot in subscriber.plan.receiveSlots {
                let slot = receiveSlot.slot
                guard let rewriter = subscriber.rewriters.position(of: slot) else { continue }
                let stream = assignment.source(in: slot)
                let ssrc = stream.flatMap { incomingSSRC(of: $0, for: user) }
                let (source, pending) = (subscriber.rewriters[rewriter].source, subscriber.rewriters[rewriter].pending)
                if (pending ?? source) != ssrc { changes.slotSwitches += 1 }
                // A video slot keeps its current source until the new one's keyframe, if that
                // source may still be received; otherwise it goes dark until then.
                // A simulcast layer no longer forwarded is still its publication's picture.
                let policy: SlotRewriter.SwitchPolicy
                if slot.kind.needsKeyframe, ssrc != nil {
                    let current = source.flatMap { upTracks[$0]?.stream ?? simulcast.stream(ofLayer: $0) }
                    policy = .atKeyframe(keepingCurrent: current.map { decodable[user, default: []].contains($0) } ?? false)
                } else {
                    policy = .immediately
                }
                var translation: HeaderTranslation?
                if let ssrc, let format = upTracks[ssrc]?.format, let slotFormat = subscriber.slotFormats[slot] {
                    translation = catalog.translation(from: format, to: slotFormat)
                }
                if subscriber.rewriters[rewriter].select(source: ssrc, policy: policy, translation: translation),
                    let stream, let ssrc
                {
                    keyframeSources.insert(KeyframeSource(publisher: stream.publisher, ssrc: ssrc))
                }
                let (newSource, newPending) = (subscriber.rewriters[rewriter].source, subscriber.rewriters[rewriter].pending)
                routes.route(SlotDestination(subscriber: user, slot: slot), from: [newSource, newPending].compactMap { $0 })
                if slot.kind.needsKeyframe, source != nil, newSource == nil,
                    let closing = closingCopy(to: user, in: receiveSlot, header: subscriber.rewriters[rewriter].closingHeader(at: now))
                {
                    changes.closings.append(closing)
                }
            }
            records.assign(assignment, to: user)
        }

        for source in keyframeSources.sorted(by: { ($0.publisher, $0.ssrc) < ($1.publisher, $1.ssrc) })
        where keyframeRequests.shouldRequest(source.ssrc, at: now) {
            changes.keyframeRequests.append((source.publisher, source.ssrc))
        }
        for user in next.keys.sorted() {
            let subscriber = subscribers[user]!
            let slots = subscriber.plan.receiveSlots.map {
                SubscriberSlotMap.Slot(mid: $0.mid, kind: $0.slot.kind, publisher: next[user]?.source(in: $0.slot)?.publisher)
            }
            let map = SubscriberSlotMap(slots: slots, unplayable: unplayable[user, default: []])
            subscriber.currentMap = map
            guard let channel = records.channel(of: user) else { continue }
            if subscriber.sentMap != map || subscriber.sentTo != channel {
                subscriber.sentMap = map
                subscriber.sentTo = channel
                changes.slotMaps.append((user, map))
            }
        }
        tellWaitingWhoSpeaks(among: users, in: &changes)
        return changes
    }

    /// Tells `users` who speaks, each in one frame with its current slot map, which replaces
    /// any slot map `changes` already holds for it (once: a user `changes` already tells is
    /// skipped).
    func announce(_ speakers: [Int], to users: some Sequence<Int>, in changes: inout Changes) {
        var already = Set(changes.activeSpeakers.map(\.user))
        var told = Set<Int>()
        for user in users where !already.contains(user) {
            guard let channel = records.channel(of: user) else { continue }
            let map = subscribers[user]?.currentMap ?? .empty
            if subscribers[user] != nil {
                subscribers[user]!.sentMap = map
                subscribers[user]!.sentTo = channel
            }
            already.insert(user)
            told.insert(user)
            changes.activeSpeakers.append((user, speakers, map))
        }
        if !told.isEmpty { changes.slotMaps.removeAll { told.contains($0.user) } }
    }

    /// Takes a departing peer's slots out of the table.
    private func unroute(_ user: Int, _ subscriber: Subscriber) {
        for slot in subscriber.rewriters.slots { routes.route(SlotDestination(subscriber: user, slot: slot), from: []) }
    }

    /// Records each stream's SSRC and format from the peers' plans; a stream that is gone takes
    /// its cache and its request bookkeeping with it. Runs when a peer comes or goes.
    func learnStreams() {
        var incomingSSRC: [PublishedStream: UInt32] = [:]
        var formats: [PublishedStream: Int] = [:]
        for (user, subscriber) in subscribers {
            for (kind, ssrc) in subscriber.plan.publishedSSRCs {
                let stream = PublishedStream(publisher: user, kind: kind)
                incomingSSRC[stream] = ssrc
                formats[stream] = subscriber.publishedFormats[kind]
            }
        }
        // A simulcast publication's stream is the layer it forwards.
        for (stream, ssrc) in simulcast.forwardedLayers {
            incomingSSRC[stream] = ssrc
            formats[stream] = subscribers[stream.publisher]?.publishedFormats[stream.kind]
        }
        ssrcsByStream = incomingSSRC
        playability.removeAll(keepingCapacity: true)
        // Every layer of a simulcast publication is its stream: a subscriber may show any.
        var every = incomingSSRC.map { (stream: $0.key, ssrc: $0.value) }
        for (stream, publication) in simulcast.publications {
            for ssrc in publication.ssrcs.values where ssrc != incomingSSRC[stream] { every.append((stream, ssrc)) }
        }
        var tracks: [UInt32: UpTrack] = [:]
        for (stream, ssrc) in every where tracks[ssrc] == nil {
            let format = formats[stream] ?? subscribers[stream.publisher]?.publishedFormats[stream.kind]
            var track = UpTrack(stream: stream, format: format)
            if let format {
                let described = catalog.formats[format]
                if stream.kind == .audio { track.audioLevelID = described.headerExtensionIDs[RTPExtensionURI.audioLevel] }
                if stream.kind.needsKeyframe, let codec = KeyframeDetector.Codec(name: described.codec.name) {
                    // A stream whose format is unchanged keeps its recent packets and losses.
                    let kept = upTracks[ssrc].flatMap { $0.format == format ? $0.repair : nil }
                    track.repair = kept ?? UpTrack.Repair(codec: codec)
                }
            }
            tracks[ssrc] = track
        }
        let gone = Set(upTracks.keys).subtracting(tracks.keys)
        upTracks = tracks
        for gone in gone {
            keyframeRequests.forget(gone)
            upstreamNACKs.forget(gone)
        }
        learnRecordingTaps()
    }
}
