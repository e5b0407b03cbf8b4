import CaucusCore
import CaucusMedia
import CaucusProtocol

/// One session's routing on the media loop: the subscribers' slots and rewriters, the latest
/// "who may receive what" the session handed over, the immutable `RoutingTable` the packet
/// path reads, and per publisher stream what loss repair needs (its format, its recent packets,
/// its keyframe requests). Confined to the media channel's loop (it is owned by `MediaRouter`).
/// Time is an input: each call takes `now` on the media clock.
///
/// Users are plain `Int`s here, as the router's values take them. The packet path (forwarding,
/// RTCP, retransmissions) is in `SessionMediaRouter+PacketPath.swift`.
final class SessionMediaRouter {
    /// A user with a media peer: its slots (from its offer) and their rewriters.
    struct Subscriber {
        let plan: MediaSlotPlan
        /// Each slot's rewriter, which also holds how its source is renumbered for this subscriber.
        var rewriters: [SlotID: SlotRewriter]
        /// The catalog numbers of each slot's format, of the first slot's per kind (what a
        /// publication must translate to for this subscriber to receive it: every slot of a
        /// kind comes from one offer), and of each publication's.
        let slotFormats: [SlotID: Int]
        let receiveFormats: [StreamKind: Int]
        let publishedFormats: [StreamKind: Int]
        /// Each slot's RTX stream (RFC 4588), where its answer negotiated RTX: the SSRC the
        /// answer announced, and the sequence number its next retransmission takes.
        var retransmissionStreams: [SlotID: RTXEncapsulation]
        /// The slot map as the latest recomputation left it.
        var currentMap: MediaSlotMap?
        /// The slot map last sent, and on which connection.
        var sentMap: MediaSlotMap?
        var sentTo: ObjectIdentifier?

        init(plan: MediaSlotPlan, catalog: inout FormatCatalog) {
            self.plan = plan
            rewriters = Dictionary(uniqueKeysWithValues: plan.receiveSlots.map {
                ($0.slot, SlotRewriter(slot: $0.slot, outgoingSSRC: $0.outgoingSSRC))
            })
            var slotFormats: [SlotID: Int] = [:]
            var receiveFormats: [StreamKind: Int] = [:]
            var retransmissionStreams: [SlotID: RTXEncapsulation] = [:]
            for slot in plan.receiveSlots {
                guard let format = slot.format else { continue }
                if let payloadType = format.retransmissionPayloadType {
                    // Any first number will do (RFC 3550 asks for a random one against known-
                    // plaintext attacks, which SRTP makes moot); the SSRC is random already.
                    retransmissionStreams[slot.slot] = RTXEncapsulation(
                        ssrc: slot.retransmissionSSRC, payloadType: payloadType, sequenceNumber: UInt16(truncatingIfNeeded: slot.retransmissionSSRC))
                }
                let id = catalog.id(of: format)
                slotFormats[slot.slot] = id
                if receiveFormats[slot.slot.kind] == nil { receiveFormats[slot.slot.kind] = id }
            }
            self.slotFormats = slotFormats
            self.receiveFormats = receiveFormats
            self.retransmissionStreams = retransmissionStreams
            publishedFormats = plan.publishedFormats.mapValues { catalog.id(of: $0) }
        }
    }

    /// What one recomputation asks the shell to do.
    struct Changes {
        /// Publishers to ask for a keyframe, with the incoming SSRC to name.
        var keyframeRequests: [(publisher: Int, ssrc: UInt32)] = []
        var slotMaps: [(connection: ClientConnection, map: MediaSlotMap)] = []
        /// Receive slots whose source changed.
        var slotSwitches = 0
    }

    var subscribers: [Int: Subscriber] = [:]
    /// Per user, the streams it may receive now (`SessionState.mediaSources(for:)`), in the
    /// session's order.
    private var eligible: [Int: [PublishedStream]] = [:]
    private var connections: [Int: ClientConnection] = [:]
    private var assignments: [Int: SlotAssignment] = [:]
    /// Incoming SSRC → the stream it carries and its format, from the publishers' offers.
    private(set) var streamsBySSRC: [UInt32: PublishedStream] = [:]
    /// Incoming SSRC → the catalog number of its format.
    private(set) var formatsBySSRC: [UInt32: Int] = [:]
    var catalog = FormatCatalog()
    /// The video streams whose keyframes the packet path recognises, by incoming SSRC.
    private(set) var keyframeCodecs: [UInt32: KeyframeDetector.Codec] = [:]
    private(set) var table = RoutingTable.empty
    /// Recent packets of each video and screen-share stream, for NACKs.
    var caches: [UInt32: RetransmissionCache] = [:]
    /// What each video and screen-share stream lost on its way here, asked of its publisher.
    var upstreamLoss: [UInt32: UpstreamLoss] = [:]
    var keyframeRequests = KeyframeRequests()
    var upstreamNACKs = UpstreamNACKs()
    /// Publishers' RTX SSRCs → what their packets restore (`SessionMediaRouter+Retransmissions.swift`).
    var retransmissionSources: [UInt32: RetransmissionSource] = [:]
    /// The transport-wide sequence number's extension ID of each publisher that negotiated it,
    /// and its arrivals (`SessionMediaRouter+TransportFeedback.swift`).
    var transportSequenceIDs: [Int: UInt8] = [:]
    var transportFeedback: [Int: TransportFeedbackRecorder] = [:]
    /// Simulcast publications, their layers' SSRCs as learned, and when layers were last ranked
    /// (`SessionMediaRouter+Simulcast.swift`).
    var simulcast: [PublishedStream: SimulcastPublication] = [:]
    var simulcastLayerSSRCs: [UInt32: PublishedStream] = [:]
    var lastLayerRanking: Duration = .zero

    var isEmpty: Bool { subscribers.isEmpty }

    func add(_ user: Int, plan: MediaSlotPlan, now: Duration) -> Changes {
        forgetRetransmissionSources(of: user)
        forgetTransportSequences(of: user)
        forgetSimulcast(of: user)
        subscribers[user] = Subscriber(plan: plan, catalog: &catalog)
        learnRetransmissionSources(of: user, plan: plan)
        learnTransportSequences(of: user, plan: plan)
        learnSimulcast(of: user, plan: plan)
        assignments[user] = nil
        return recompute(now: now)
    }

    func remove(_ user: Int, now: Duration) -> Changes {
        guard subscribers.removeValue(forKey: user) != nil else { return Changes() }
        forgetRetransmissionSources(of: user)
        forgetTransportSequences(of: user)
        forgetSimulcast(of: user)
        assignments[user] = nil
        return recompute(now: now)
    }

    /// The session's latest state, handed over after a batch of events.
    func update(eligible: [Int: [PublishedStream]], connections: [Int: ClientConnection], now: Duration) -> Changes {
        self.eligible = eligible
        self.connections = connections
        return recompute(now: now)
    }

    /// Reassigns every subscriber's slots from the latest eligibility, re-points the rewriters
    /// whose source changed, builds a new table, and says which keyframes and slot maps to send.
    func recompute(now: Duration) -> Changes {
        var incomingSSRC: [PublishedStream: UInt32] = [:]
        var incomingFormat: [PublishedStream: Int] = [:]
        for (user, subscriber) in subscribers {
            for (kind, ssrc) in subscriber.plan.publishedSSRCs {
                let stream = PublishedStream(publisher: user, kind: kind)
                incomingSSRC[stream] = ssrc
                incomingFormat[stream] = subscriber.publishedFormats[kind]
            }
        }
        for (stream, ssrc) in forwardedLayers {
            incomingSSRC[stream] = ssrc
            incomingFormat[stream] = subscribers[stream.publisher]?.publishedFormats[stream.kind]
        }
        learnStreams(incomingSSRC, formats: incomingFormat)

        var next: [Int: SlotAssignment] = [:]
        var unplayable: [Int: [PublishedStream]] = [:]
        var decodable: [Int: Set<PublishedStream>] = [:]
        for (user, subscriber) in subscribers {
            var streams: [PublishedStream] = []
            for stream in eligible[user, default: []] where incomingSSRC[stream] != nil {
                // A subscriber with no slot of the kind simply does not receive it; one whose
                // slots cannot carry the publisher's codec is told so in its slot map.
                guard let slotFormat = subscriber.receiveFormats[stream.kind] else { continue }
                if let format = incomingFormat[stream], catalog.translation(from: format, to: slotFormat) != nil {
                    streams.append(stream)
                } else {
                    unplayable[user, default: []].append(stream)
                }
            }
            decodable[user] = Set(streams)
            next[user] = SlotAssignment.assign(
                eligible: streams, activity: [:], layout: subscriber.plan.layout, previous: assignments[user] ?? .empty)
        }
        var keyframes = Set(RoutingUpdate(from: assignments, to: next).keyframeRequests)
        var switches = 0
        // Every slot is re-pointed, not only those the update names: a publisher's new offer
        // changes its SSRC without changing any assignment.
        for (user, assignment) in next {
            for slot in subscribers[user]!.rewriters.keys {
                let stream = assignment.source(in: slot)
                let ssrc = stream.flatMap { incomingSSRC[$0] }
                let rewriter = subscribers[user]!.rewriters[slot]!
                if (rewriter.pending ?? rewriter.source) != ssrc { switches += 1 }
                // A video slot keeps its current source until the new one's keyframe, if that
                // source may still be received; otherwise it goes dark until then.
                // A simulcast layer no longer forwarded is still its publication's picture.
                let current = rewriter.source.flatMap { streamsBySSRC[$0] ?? simulcastLayerSSRCs[$0] }
                let policy: SlotRewriter.SwitchPolicy = slot.kind.needsKeyframe && ssrc != nil
                    ? .atKeyframe(keepingCurrent: current.map { decodable[user, default: []].contains($0) } ?? false)
                    : .immediately
                var translation: HeaderTranslation?
                if let format = stream.flatMap({ incomingFormat[$0] }), let slotFormat = subscribers[user]!.slotFormats[slot] {
                    translation = catalog.translation(from: format, to: slotFormat)
                }
                if subscribers[user]!.rewriters[slot]!.select(source: ssrc, policy: policy, translation: translation), let stream {
                    keyframes.insert(stream)
                }
            }
        }
        assignments = next
        table = makeTable()

        var changes = Changes(slotSwitches: switches)
        for stream in keyframes.sorted(by: { ($0.publisher, $0.kind.rawValue) < ($1.publisher, $1.kind.rawValue) }) {
            if let ssrc = incomingSSRC[stream], keyframeRequests.shouldRequest(ssrc, at: now) {
                changes.keyframeRequests.append((stream.publisher, ssrc))
            }
        }
        for user in subscribers.keys.sorted() {
            let slots = subscribers[user]!.plan.receiveSlots.map {
                MediaSlot(mid: $0.mid, kind: $0.slot.kind.rawValue, user: next[user]?.source(in: $0.slot).map { UserID($0.publisher) })
            }
            let map = MediaSlotMap(slots: slots, unplayable: unplayable[user, default: []].map {
                UnplayableMedia(user: UserID($0.publisher), kind: $0.kind.rawValue, reason: .codec)
            })
            subscribers[user]!.currentMap = map
            guard let connection = connections[user] else { continue }
            if subscribers[user]!.sentMap != map || subscribers[user]!.sentTo != ObjectIdentifier(connection) {
                subscribers[user]!.sentMap = map
                subscribers[user]!.sentTo = ObjectIdentifier(connection)
                changes.slotMaps.append((connection, map))
            }
        }
        return changes
    }

    /// Records each stream's SSRC and format; a stream that is gone takes its cache and its
    /// request bookkeeping with it.
    private func learnStreams(_ incomingSSRC: [PublishedStream: UInt32], formats: [PublishedStream: Int]) {
        let previous = Set(streamsBySSRC.keys)
        streamsBySSRC = Dictionary(incomingSSRC.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        var current: [UInt32: Int] = [:]
        for (stream, ssrc) in incomingSSRC {
            guard let format = formats[stream] else { continue }
            current[ssrc] = format
            guard formatsBySSRC[ssrc] != format else { continue }
            keyframeCodecs[ssrc] = nil
            if stream.kind.needsKeyframe, let codec = KeyframeDetector.Codec(name: catalog.formats[format].codec.name) {
                keyframeCodecs[ssrc] = codec
                if caches[ssrc] == nil { caches[ssrc] = RetransmissionCache() }
                if upstreamLoss[ssrc] == nil { upstreamLoss[ssrc] = UpstreamLoss() }
            }
        }
        formatsBySSRC = current
        for gone in previous.subtracting(streamsBySSRC.keys) {
            keyframeCodecs[gone] = nil
            caches[gone] = nil
            upstreamLoss[gone] = nil
            keyframeRequests.forget(gone)
            upstreamNACKs.forget(gone)
        }
    }

    /// Incoming SSRC → the slots it reaches: each slot's current source, and the source it
    /// waits to switch to (whose keyframe the slot must see).
    private func makeTable() -> RoutingTable {
        var routes: [(ssrc: UInt32, destination: SlotDestination)] = []
        for (user, subscriber) in subscribers {
            for (slot, rewriter) in subscriber.rewriters {
                for ssrc in [rewriter.source, rewriter.pending].compactMap({ $0 }) {
                    routes.append((ssrc, SlotDestination(subscriber: user, slot: slot)))
                }
            }
        }
        return RoutingTable(routes: routes)
    }
}
