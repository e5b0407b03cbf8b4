import CaucusCore
import CaucusMedia
import CaucusProtocol

/// One session's routing on the media loop: the subscribers' slots and rewriters, the latest
/// "who may receive what" the session handed over, and the immutable `RoutingTable` the
/// packet path reads. Confined to the media channel's loop (it is owned by `MediaRouter`).
///
/// Users are plain `Int`s here, as the router's values take them.
final class SessionMediaRouter {
    /// A user with a media peer: its slots (from its offer) and their rewriters.
    struct Subscriber {
        let plan: MediaSlotPlan
        var rewriters: [SlotID: SlotRewriter]
        /// The slot map last sent, and on which connection.
        var sentMap: [MediaSlot]?
        var sentTo: ObjectIdentifier?

        init(plan: MediaSlotPlan) {
            self.plan = plan
            rewriters = Dictionary(uniqueKeysWithValues: plan.receiveSlots.map {
                ($0.slot, SlotRewriter(slot: $0.slot, outgoingSSRC: $0.outgoingSSRC))
            })
        }
    }

    /// What one recomputation asks the shell to do.
    struct Changes {
        /// Publishers to ask for a keyframe, with the incoming SSRC to name.
        var keyframeRequests: [(publisher: Int, ssrc: UInt32)] = []
        var slotMaps: [(connection: ClientConnection, slots: [MediaSlot])] = []
        /// Receive slots whose source changed.
        var slotSwitches = 0
    }

    private(set) var subscribers: [Int: Subscriber] = [:]
    /// Per user, the streams it may receive now (`SessionState.mediaSources(for:)`), in the
    /// session's order.
    private var eligible: [Int: [PublishedStream]] = [:]
    private var connections: [Int: ClientConnection] = [:]
    private var assignments: [Int: SlotAssignment] = [:]
    /// Incoming SSRC → the stream it carries, from the publishers' offers.
    private var streamsBySSRC: [UInt32: PublishedStream] = [:]
    private(set) var table = RoutingTable.empty

    var isEmpty: Bool { subscribers.isEmpty }

    func add(_ user: Int, plan: MediaSlotPlan) -> Changes {
        subscribers[user] = Subscriber(plan: plan)
        assignments[user] = nil
        return recompute()
    }

    func remove(_ user: Int) -> Changes {
        guard subscribers.removeValue(forKey: user) != nil else { return Changes() }
        assignments[user] = nil
        return recompute()
    }

    /// The session's latest state, handed over after a batch of events.
    func update(eligible: [Int: [PublishedStream]], connections: [Int: ClientConnection]) -> Changes {
        self.eligible = eligible
        self.connections = connections
        return recompute()
    }

    /// Reassigns every subscriber's slots from the latest eligibility, re-points the rewriters
    /// whose source changed, builds a new table, and says which keyframes and slot maps to send.
    private func recompute() -> Changes {
        var incomingSSRC: [PublishedStream: UInt32] = [:]
        for (user, subscriber) in subscribers {
            for (kind, ssrc) in subscriber.plan.publishedSSRCs {
                incomingSSRC[PublishedStream(publisher: user, kind: kind)] = ssrc
            }
        }
        streamsBySSRC = Dictionary(incomingSSRC.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })

        var next: [Int: SlotAssignment] = [:]
        for (user, subscriber) in subscribers {
            let streams = eligible[user, default: []].filter { incomingSSRC[$0] != nil }
            next[user] = SlotAssignment.assign(
                eligible: streams, activity: [:], layout: subscriber.plan.layout, previous: assignments[user] ?? .empty)
        }
        let update = RoutingUpdate(from: assignments, to: next)
        var keyframes = Set(update.keyframeRequests)
        var switches = 0
        // Every slot is re-pointed, not only those the update names: a publisher's new offer
        // changes its SSRC without changing any assignment.
        for (user, assignment) in next {
            for slot in subscribers[user]!.rewriters.keys {
                let stream = assignment.source(in: slot)
                let ssrc = stream.flatMap { incomingSSRC[$0] }
                if subscribers[user]!.rewriters[slot]!.source != ssrc { switches += 1 }
                if subscribers[user]!.rewriters[slot]!.select(source: ssrc), let stream { keyframes.insert(stream) }
            }
        }
        assignments = next
        table = RoutingTable(assignments: next, incomingSSRC: incomingSSRC)

        var changes = Changes(slotSwitches: switches)
        for stream in keyframes.sorted(by: { ($0.publisher, $0.kind.rawValue) < ($1.publisher, $1.kind.rawValue) }) {
            if let ssrc = incomingSSRC[stream] { changes.keyframeRequests.append((stream.publisher, ssrc)) }
        }
        for user in subscribers.keys.sorted() {
            guard let connection = connections[user] else { continue }
            let map = subscribers[user]!.plan.receiveSlots.map {
                MediaSlot(mid: $0.mid, kind: $0.slot.kind.rawValue, user: next[user]?.source(in: $0.slot).map { UserID($0.publisher) })
            }
            if subscribers[user]!.sentMap != map || subscribers[user]!.sentTo != ObjectIdentifier(connection) {
                subscribers[user]!.sentMap = map
                subscribers[user]!.sentTo = ObjectIdentifier(connection)
                changes.slotMaps.append((connection, map))
            }
        }
        return changes
    }

    // MARK: - The packet path

    /// A publisher's decrypted RTP: calls `deliver` with each subscriber and the header its
    /// copy leaves with (the caller writes the copy straight into its outgoing buffer).
    func forward(rtp packet: [UInt8], arrival: Duration, deliver: (Int, RewrittenHeader) -> Void) {
        guard packet.count >= 12, packet[0] >> 6 == 2 else { return }
        let ssrc = Self.read32(packet, at: 8)
        let destinations = table.destinations(of: ssrc)
        guard !destinations.isEmpty else { return }
        let sequenceNumber = UInt16(packet[2]) << 8 | UInt16(packet[3])
        let timestamp = Self.read32(packet, at: 4)
        for destination in destinations {
            guard
                let header = subscribers[destination.subscriber]?.rewriters[destination.slot]?.rewrite(
                    ssrc: ssrc, sequenceNumber: sequenceNumber, timestamp: timestamp, payloadLength: packet.count - 12,
                    arrival: arrival)
            else { continue }
            deliver(destination.subscriber, header)
        }
    }

    /// A user's RTCP, as a subscriber and as a publisher, turned into the RTCP the router sends
    /// on (each to a user, to protect for its peer):
    /// - a PLI or FIR about one of its slots becomes a PLI to the slot's current source;
    /// - a NACK of a slot's sequence numbers becomes NACKs to the sources that sent them, with
    ///   their original numbers (``SlotRewriter/translate(_:senderSSRC:)``);
    /// - a publisher's sender report goes to every slot its stream fills, as that slot's report
    ///   (its SSRC, its timestamps), so receivers keep lip sync and round-trip times.
    ///
    /// Receiver reports, REMB and transport-cc end here: the server answers for its own
    /// streams, and a publisher's congestion control sees the server, not each subscriber.
    func route(rtcp packet: [UInt8], from user: Int) -> [(user: Int, rtcp: [UInt8])] {
        guard let packets = try? RTCPPacket.decodeCompound(packet) else { return [] }
        var routed: [(user: Int, rtcp: [UInt8])] = []
        var keyframes: Set<UInt32> = []
        for rtcp in packets {
            switch rtcp {
            case .pictureLossIndication(_, let mediaSSRC): keyframes.insert(mediaSSRC)
            case .fullIntraRequest(let request): keyframes.formUnion(request.entries.map(\.ssrc))
            case .genericNACK(let nack):
                guard let rewriter = subscribers[user]?.rewriters.values.first(where: { $0.outgoingSSRC == nack.mediaSSRC }) else { continue }
                for translated in rewriter.translate(nack, senderSSRC: Self.routerSSRC) {
                    if let stream = streamsBySSRC[translated.mediaSSRC] { routed.append((stream.publisher, RTCPPacket.genericNACK(translated).encoded())) }
                }
            case .senderReport(let report):
                guard streamsBySSRC[report.ssrc]?.publisher == user else { continue }
                for destination in table.destinations(of: report.ssrc) {
                    if let translated = subscribers[destination.subscriber]?.rewriters[destination.slot]?.translate(report) {
                        routed.append((destination.subscriber, RTCPPacket.senderReport(translated).encoded()))
                    }
                }
            default: continue
            }
        }
        if let subscriber = subscribers[user] {
            for outgoing in keyframes.sorted() {
                guard let rewriter = subscriber.rewriters.values.first(where: { $0.outgoingSSRC == outgoing }),
                    let source = rewriter.keyframeTarget, let stream = streamsBySSRC[source]
                else { continue }
                routed.append((stream.publisher, RTCPPacket.pictureLossIndication(senderSSRC: Self.routerSSRC, mediaSSRC: source).encoded()))
            }
        }
        return routed
    }

    /// The sender SSRC of the router's own feedback (it sends no media of its own under it).
    static let routerSSRC: UInt32 = 1

    private static func read32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }
}
