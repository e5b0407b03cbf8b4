import CaucusMedia

/// The packet path of a session's routing: forwarding each publisher packet to the slots it
/// fills, and each user's RTCP — keyframe requests paced per publisher, NACKs answered from
/// the retransmission cache where it can, the rest asked of the publisher once.
extension ForwardingEngine {
    /// A copy to send one subscriber: a packet, the header it leaves with and its renumbering
    /// (the caller writes it straight into its outgoing buffer).
    public struct Copy {
        public let subscriber: Int
        public let packet: [UInt8]
        public let header: RewrittenHeader
        public let translation: HeaderTranslation
        /// For a repair to a slot that negotiated RTX: the RTX stream it leaves on.
        public var retransmittedAs: RTXEncapsulation? = nil
        /// The subscriber's transport-wide number for it, where it estimates its downlink.
        public var transportSequence: UInt16? = nil
    }

    /// What a user's RTCP asks the shell to send.
    struct RoutedRTCP {
        /// RTCP for users (keyframe requests and NACKs to publishers, sender reports to subscribers).
        var rtcp: [(user: Int, rtcp: [UInt8])] = []
        /// Retransmissions from the cache, for the subscriber that asked.
        var retransmissions: [Copy] = []

        var isEmpty: Bool { rtcp.isEmpty && retransmissions.isEmpty }

        /// Empties both, keeping their storage.
        mutating func removeAll() {
            rtcp.removeAll(keepingCapacity: true)
            retransmissions.removeAll(keepingCapacity: true)
        }
    }

    /// A publisher's decrypted RTP: calls `deliver` with each subscriber, the header its copy
    /// leaves with and the renumbering of its payload type and extensions (the caller stamps
    /// the copy with ``transportSequence(to:size:translation:at:)``). Returns the RTCP it
    /// calls for, to the publisher: a NACK of a gap it opens in the stream, and a keyframe
    /// request when a slot still waits for this stream's keyframe and the last request has had
    /// time to be answered. A packet that fills such a gap is delivered twice to a subscriber
    /// known to drop RTX repairs (``RetransmissionAcceptance``).
    func forward(
        rtp packet: [UInt8], arrival: Duration, deliver: (Int, RewrittenHeader, HeaderTranslation) -> Void
    ) -> [(user: Int, rtcp: [UInt8])] {
        guard packet.count >= 12, packet[0] >> 6 == 2 else { return [] }
        let ssrc = Self.read32(packet, at: 8)
        return forward(rtp: packet, ssrc: ssrc, track: upTracks.index(forKey: ssrc), arrival: arrival, deliver: deliver)
    }

    /// The same for a packet already checked (12 bytes or more, RTP version 2) whose SSRC and
    /// up-track (nil: none) the caller has looked up: one lookup per packet on the engine's path.
    func forward(
        rtp packet: [UInt8], ssrc: UInt32, track: Dictionary<UInt32, UpTrack>.Index?, arrival: Duration,
        deliver: (Int, RewrittenHeader, HeaderTranslation) -> Void
    ) -> [(user: Int, rtcp: [UInt8])] {
        // Before the routes: a speaker nobody's slot holds yet must be heard to win one.
        if let track { hearLevel(of: packet, audioLevel: Self.audioLevel(of: &upTracks.values[track]), at: arrival) }
        let destinations = routes.destinations(of: ssrc)
        guard !destinations.isEmpty else { return [] }
        let sequenceNumber = UInt16(packet[2]) << 8 | UInt16(packet[3])
        let timestamp = Self.read32(packet, at: 4)
        var startsKeyframe = false
        var fillsGap = false
        var feedback: [(user: Int, rtcp: [UInt8])] = []
        // Changed in place, by index: optional chaining through the dictionary copies the
        // track (and retains its cache) for every packet.
        if let track {
            let arrived = upTracks.values[track].arrive(packet, sequenceNumber: sequenceNumber, at: arrival)
            startsKeyframe = arrived.startsKeyframe
            fillsGap = arrived.fillsGap
            if startsKeyframe { keyframeRequests.keyframeArrived(ssrc) }
            if !arrived.lost.isEmpty {
                feedback.append((publisher(ofUpTrackAt: track), Self.nack(arrived.lost, of: ssrc)))
                // Asked now: due again one retry interval on, unless something else is due first.
                let due = arrival + UpstreamLoss.retryInterval
                repairDeadline = repairDeadline.map { min($0, due) } ?? due
            }
        }
        var stillWaiting = false
        for destination in destinations {
            // By index, in place: `subscribers[user]?.rewriters[slot]?.rewrite(…)` copied the
            // whole subscriber for every copy (a tenth of the server's CPU in a profile).
            guard let index = subscribers.index(forKey: destination.subscriber) else { continue }
            guard
                let header = subscribers.values[index].rewrite(
                    slot: destination.slot, ssrc: ssrc, sequenceNumber: sequenceNumber, timestamp: timestamp,
                    payloadLength: packet.count - 12, arrival: arrival, startsKeyframe: startsKeyframe)
            else {
                guard let rewriter = subscribers.values[index].rewriters[destination.slot] else { continue }
                if rewriter.pending == ssrc {
                    stillWaiting = true
                } else if rewriter.source != ssrc {
                    // The slot switched away from this stream (at the new source's keyframe):
                    // the route goes now, on the failure path, not at the next recomputation.
                    // Only this route: one a sliced handover cut stays cut until its slice.
                    routes.route(destination, from: routes.sources(of: destination).filter { $0 != ssrc })
                }
                continue
            }
            // No translation: the slot cannot carry this codec; never send what cannot decode.
            guard let translation = header.translation else { continue }
            deliver(destination.subscriber, header, translation)
            // The publisher's repair of a loss every subscriber has asked for or soon will: to
            // one that asks once per gap, twice (as its repairs from the cache).
            if fillsGap, !subscribers.values[index].retransmissionAcceptance.sendsRetransmissions {
                deliver(destination.subscriber, header, translation)
            }
        }
        if stillWaiting, let track, keyframeRequests.shouldRequest(ssrc, at: arrival) {
            feedback.append((publisher(ofUpTrackAt: track), Self.pli(ssrc)))
        }
        return feedback
    }

    /// Called on the media loop's timer: the publishers' lost packets still missing after
    /// ``UpstreamLoss/retryInterval``, asked for again; a keyframe asked for where one was given
    /// up (its gap stays open for every subscriber); and each publisher's transport-wide
    /// feedback on what arrived since the last tick. (The subscribers' probes and layers:
    /// ``tickDownlinks(now:interval:)``.)
    func tick(now: Duration) -> [(user: Int, rtcp: [UInt8])] {
        transportFeedbackDue() + repairsDue(now: now)
    }

    /// Lost publisher packets due to be asked for again (NACKs), and keyframes for those given
    /// up; ``repairDeadline`` set to when the next ask falls due.
    func repairsDue(now: Duration) -> [(user: Int, rtcp: [UInt8])] {
        var feedback: [(user: Int, rtcp: [UInt8])] = []
        var next: Duration?
        defer { repairDeadline = next }
        // In place, by index: no array of keys, no lookup or copy of each track, every tick.
        // The indices are walked by hand: `upTracks.indices` holds the dictionary's storage,
        // so each write below found it shared and copied the whole dictionary, every track and
        // its cache retained, on every tick (the tick took about 1 % of the media loop's
        // samples in a profile, 0.3 % since: docs/benchmarks.md). A write through `values`
        // moves no entry, so the walk stays valid.
        var index = upTracks.startIndex
        while index != upTracks.endIndex {
            defer { upTracks.formIndex(after: &index) }
            let (due, nextDue) = Self.takeRepairsDue(of: &upTracks.values[index], at: now)
            if let nextDue { next = min(next ?? nextDue, nextDue) }
            guard let due, !due.ask.isEmpty || due.givenUp > 0 else { continue }
            let (ssrc, track) = upTracks[index]
            if !due.ask.isEmpty { feedback.append((track.stream.publisher, Self.nack(due.ask, of: ssrc))) }
            if due.givenUp > 0, keyframeRequests.shouldRequestOnBehalf(ssrc, at: now) {
                feedback.append((track.stream.publisher, Self.pli(ssrc)))
            }
        }
        return feedback
    }

    /// A video track's losses due to be asked for again now, or given up (nil: it keeps none),
    /// and when its next falls due; in place (a read through the dictionary's getter copies
    /// the track).
    private static func takeRepairsDue(
        of track: inout UpTrack, at now: Duration
    ) -> (due: (ask: [UInt16], givenUp: Int)?, next: Duration?) {
        guard track.repair != nil else { return (nil, nil) }
        let due = track.repair!.loss.dueAndGivenUp(at: now)
        return (due, track.repair!.loss.nextDeadline)
    }

    static func nack(_ lost: [UInt16], of ssrc: UInt32) -> [UInt8] {
        RTCPPacket.genericNACK(RTCPGenericNACK(senderSSRC: routerSSRC, mediaSSRC: ssrc, lost: lost)).encoded()
    }

    static func pli(_ ssrc: UInt32) -> [UInt8] {
        RTCPPacket.pictureLossIndication(senderSSRC: routerSSRC, mediaSSRC: ssrc).encoded()
    }

    /// A user's RTCP, as a subscriber and as a publisher, turned into what the router sends on:
    /// - a PLI or FIR about one of its slots becomes a PLI to the slot's current source, unless
    ///   one is outstanding (``KeyframeRequests``);
    /// - a NACK of a slot's sequence numbers sent from its current source is answered from the
    ///   cache, each packet sent again as the slot sent it (its SSRC, number and timestamp), in
    ///   an RTX packet on the slot's RTX stream where the slot negotiated RTX; what
    ///   the cache lacks, unless ``UpstreamLoss`` already asks for it, becomes a NACK to the
    ///   source with its own numbers, once per ``UpstreamNACKs/interval``; numbers from an
    ///   earlier source of the slot are not repaired (the slot no longer shows it);
    /// - a publisher's sender report goes to every slot its stream fills, as that slot's report
    ///   (its SSRC, its timestamps), so receivers keep lip sync and round-trip times.
    ///
    /// A subscriber's transport-cc feeds its downlink estimate; until the router knows whether
    /// it takes RTX repairs, its reports' blocks help judge it (``RetransmissionAcceptance``).
    /// Receiver reports and REMB end here: the server answers for its own streams, and a
    /// publisher's congestion control sees the server, not each subscriber.
    ///
    /// Appends to `routed` (the engine passes the same one every time, emptied with its
    /// storage kept: a NACK answered from the cache allocates nothing, nor does a transport-cc
    /// report read, both read where they lie in the datagram).
    func route(rtcp packet: [UInt8], from user: Int, now: Duration, into routed: inout RoutedRTCP) {
        guard let compound = try? RTCPCompound(packet) else { return }
        var keyframes: Set<UInt32> = []
        for item in compound {
            let rtcp: RTCPPacket
            switch item {
            case .genericNACK(let nack):
                answer(nack.mediaSSRC, lost: nack.lostSequenceNumbers, from: user, now: now, into: &routed)
                continue
            case .transportCC(let feedback):
                receiveDownlinkFeedback(feedback, from: user, now: now)
                continue
            case .decoded(let decoded): rtcp = decoded
            }
            switch rtcp {
            case .pictureLossIndication(_, let mediaSSRC): keyframes.insert(mediaSSRC)
            case .fullIntraRequest(let request): keyframes.formUnion(request.entries.map(\.ssrc))
            case .receiverReport(let report): judgeRetransmissions(of: user, byReport: report.reports, at: now, into: &routed)
            case .senderReport(let report):
                judgeRetransmissions(of: user, byReport: report.reports, at: now, into: &routed)
                guard upTracks[report.ssrc]?.stream.publisher == user else { continue }
                upTracks[report.ssrc]?.lastSenderReport = (report, now)
                if !recording.isEmpty { tapForRecording(report, from: user) }
                for destination in routes.destinations(of: report.ssrc) {
                    if let translated = subscribers[destination.subscriber]?.rewriters[destination.slot]?.translate(report) {
                        routed.rtcp.append((destination.subscriber, RTCPPacket.senderReport(translated).encoded()))
                    }
                }
            default: continue
            }
        }
        if let subscriber = subscribers[user] {
            for outgoing in keyframes.sorted() {
                guard let rewriter = subscriber.rewriters.first(where: { $0.rewriter.outgoingSSRC == outgoing })?.rewriter,
                    let source = rewriter.pending ?? rewriter.keyframeTarget, let stream = upTracks[source]?.stream,
                    keyframeRequests.shouldRequest(source, at: now)
                else { continue }
                routed.rtcp.append((stream.publisher, RTCPPacket.pictureLossIndication(senderSSRC: Self.routerSSRC, mediaSSRC: source).encoded()))
            }
        }
    }

    /// What `user`'s RTCP calls for, in a routing of its own (for tests).
    func route(rtcp packet: [UInt8], from user: Int, now: Duration) -> RoutedRTCP {
        var routed = RoutedRTCP()
        route(rtcp: packet, from: user, now: now, into: &routed)
        return routed
    }

    /// The most distinct numbers of one NACK answered: a second of video at 2.5 Mbit/s. A
    /// stack asks for what it lost since its last NACK, tens of packets at most on a real path.
    public static let maximumNumbersAnsweredPerNACK = 256

    /// A NACK from `user` of `numbers`, its slot `ssrc`'s (read twice, so a sequence that can
    /// be: an array, or a NACK's numbers read in place).
    func answer(_ ssrc: UInt32, lost numbers: some Sequence<UInt16>, from user: Int, now: Duration, into routed: inout RoutedRTCP) {
        guard let subscriber = subscribers[user],
            let (slot, rewriter) = subscriber.rewriters.first(where: { $0.rewriter.outgoingSSRC == ssrc })
        else { return }
        judgeRetransmissions(of: subscriber, nackedOn: ssrc, lost: numbers, from: user, at: now, into: &routed)
        var missing: [(source: UInt32, lost: [UInt16])] = []
        // What the slot is routed from now: a user waiting for its slice of a handover keeps
        // its rewriter's source, but not the route from a stream it may no longer receive.
        let routedFrom = routes.sources(of: SlotDestination(subscriber: user, slot: slot))
        var missesStalePackets = false
        nackNumbersAnswered.removeAll(keepingCapacity: true)
        for lost in numbers {
            // Each number once, and so many at most: a NACK may name a number any number of
            // times (340 pairs of one number fit a datagram, and over TCP 16,000), and each
            // answer is a copy or two of a packet: thousands a datagram would stall the loop.
            guard nackNumbersAnswered.count < Self.maximumNumbersAnsweredPerNACK else { break }
            guard !nackNumbersAnswered.contains(lost) else { continue }
            nackNumbersAnswered.append(lost)
            if lost == rewriter.closing?.sequenceNumber,
                let receiveSlot = subscriber.plan.receiveSlots.first(where: { $0.slot == slot }),
                let closing = closingCopy(to: user, in: receiveSlot, header: rewriter.closing)
            {
                routed.retransmissions.append(closing)
                continue
            }
            guard let origin = rewriter.origin(of: lost) else { continue }
            // Only the slot's current source is repaired: an earlier one's packets would show a
            // picture (perhaps of a room the subscriber has left) the slot no longer carries.
            guard origin.source == rewriter.source, routedFrom.contains(origin.source) else {
                missesStalePackets = true
                continue
            }
            if let cached = upTracks[origin.source]?.repair?.cache.packet(origin.sequenceNumber),
                let translation = translation(from: origin.source, to: subscriber, slot: slot)
            {
                let header = origin.header(originalTimestamp: Self.read32(cached, at: 4))
                let rtx = nextRetransmission(to: user, in: slot)
                if let rtx { subscriber.retransmissionAcceptance.repaired(ssrc: ssrc, sequenceNumber: lost, on: rtx.ssrc, at: now) }
                // A stack that drops RTX repairs (aiortc) also asks for a lost packet only once,
                // and again only when a new gap opens, seconds later at a few percent loss: a
                // repair lost on the way would freeze its picture until then. Twice, both copies
                // are lost only as often as the loss rate squared.
                for _ in 0..<(subscriber.retransmissionAcceptance.sendsRetransmissions ? 1 : 2) {
                    routed.retransmissions.append(Copy(
                        subscriber: user, packet: cached, header: header, translation: translation, retransmittedAs: rtx,
                        transportSequence: transportSequence(to: user, size: cached.count, translation: translation, at: now)))
                }
            } else if upTracks[origin.source]?.repair?.loss.isMissing(origin.sequenceNumber) == true {
                // Already being asked for on its own schedule; it is forwarded when it comes.
                continue
            } else if let index = missing.firstIndex(where: { $0.source == origin.source }) {
                missing[index].lost.append(origin.sequenceNumber)
            } else {
                missing.append((origin.source, [origin.sequenceNumber]))
            }
        }
        // A receiver that waits behind the gap (aiortc) would wait long, then show what it
        // held: the slot's numbers jump past it instead, and the new picture starts at a keyframe.
        if missesStalePackets, let position = subscriber.rewriters.position(of: slot),
            subscriber.rewriters[position].skipPastStaleNumbers(),
            let current = rewriter.pending ?? rewriter.source, let stream = upTracks[current]?.stream,
            keyframeRequests.shouldRequest(current, at: now)
        {
            routed.rtcp.append((stream.publisher, Self.pli(current)))
        }
        for (source, lost) in missing {
            guard let stream = upTracks[source]?.stream else { continue }
            // The cache cannot repair it (gone from it, or never sent again): the publisher may
            // still hold it, and a keyframe mends the picture if it does not.
            if keyframeRequests.shouldRequestOnBehalf(source, at: now) {
                routed.rtcp.append((stream.publisher, Self.pli(source)))
            }
            let ask = upstreamNACKs.toAsk(lost, of: source, at: now)
            guard !ask.isEmpty else { continue }
            let upstream = RTCPGenericNACK(senderSSRC: Self.routerSSRC, mediaSSRC: source, lost: ask)
            routed.rtcp.append((stream.publisher, RTCPPacket.genericNACK(upstream).encoded()))
        }
    }

    /// How `source`'s packets are renumbered for `subscriber`'s `slot` (a retransmission may
    /// come from a source the slot has since left).
    private func translation(from source: UInt32, to subscriber: Subscriber, slot: SlotID) -> HeaderTranslation? {
        guard let format = upTracks[source]?.format, let slotFormat = subscriber.slotFormats[slot] else { return nil }
        return catalog.translation(from: format, to: slotFormat)
    }

    /// The sender SSRC of the router's own feedback (it sends no media of its own under it).
    static let routerSSRC: UInt32 = 1

    public static func read32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }
}
