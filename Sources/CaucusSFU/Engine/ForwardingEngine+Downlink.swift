import CaucusMedia

/// Each subscriber's own simulcast layer, from its own downlink. A subscriber whose answer
/// negotiated transport-wide congestion control on the sections the server sends gets every
/// copy that can carry one stamped with its own transport-wide number (where the publisher's
/// packet has the extension's room: Chromium's do), reports what arrived, and so has a
/// bandwidth estimate (``DownlinkEstimator``). Its slots show, of each simulcast publication,
/// the best layer the estimate holds (the layers' rates as measured each second, the estimate
/// shared between the simulcast publications it shows; ``SubscriberDownlinks/layer(of:budget:known:current:)``);
/// when a better layer needs more, the link is probed
/// (``ProbeSchedule``) with a cluster of repeats of packets it already has, as RTX. Audio
/// never yields: it is forwarded whatever the estimate, and only video layers are chosen by it.
/// A subscriber without the feedback gets each publication's busiest layer. The downlinks'
/// state is ``SubscriberDownlinks``; the probe copies and what each subscriber shows are the
/// engine's.
extension ForwardingEngine {
    /// The incoming SSRC `user`'s slots show of `stream`: its chosen layer, else the stream's.
    func incomingSSRC(of stream: PublishedStream, for user: Int) -> UInt32? {
        // The publication first: most streams are not simulcast, and reading a subscriber's
        // downlink copies it out of its table.
        if let publication = simulcast[stream], let rid = downlinks.layer(of: stream, for: user), let ssrc = publication.ssrcs[rid] { return ssrc }
        return ssrcsByStream[stream]
    }

    /// The transport-wide number of a copy to `subscriber`, when its translation can carry one
    /// (a probe's copies name their cluster).
    func transportSequence(
        to subscriber: Int, size: Int, translation: HeaderTranslation, at now: Duration, cluster: ProbeCluster? = nil
    ) -> UInt16? {
        guard translation.carriesTransportSequence else { return nil }
        return downlinks.stamp(to: subscriber, size: size, at: now, cluster: cluster)
    }

    /// A subscriber's transport-cc feedback on what the server sent it, read in place.
    func receiveDownlinkFeedback(_ feedback: RTCPTransportCCView, from user: Int, now: Duration) {
        guard downlinks.estimates(user), let view = RTCPTransportFeedbackView(feedbackControlInformation: feedback.feedbackControlInformation)
        else { return }
        downlinks.receive(view, from: user, at: now)
    }

    /// On the media loop's timer: probes due, and every ``SubscriberDownlinks/layerChoiceInterval``
    /// each subscriber's layers from its estimate (a recomputation of those whose choice changed).
    func tickDownlinks(now: Duration) -> (probes: [Copy], changes: Changes?) {
        guard !downlinks.isEmpty else { return ([], nil) }
        var probes: [Copy] = []
        for (user, cluster, bytes) in downlinks.stepProbes(at: now) {
            probes += probeCopies(to: user, bytes: bytes, cluster: cluster, at: now)
        }
        guard downlinks.layerChoiceDue(at: now) else { return (probes, nil) }
        let changed = chooseLayers()
        return (probes, changed.isEmpty ? nil : recompute(changed, now: now))
    }

    /// Each estimating subscriber's layer of each simulcast publication it shows; returns the
    /// subscribers whose choice changed.
    private func chooseLayers() -> [Int] {
        var changed: [Int] = []
        for user in downlinks.users {
            guard let assignment = records.assignment(of: user), let subscriber = subscribers[user] else { continue }
            let shown = Set(subscriber.rewriters.slots.compactMap { assignment.source(in: $0) })
                .compactMap { stream in simulcast[stream].map { (stream, $0) } }
            if downlinks.choose(for: user, showing: shown) { changed.append(user) }
        }
        return changed
    }

    /// Repeats of the packets a subscriber's video slots last received, as RTX (which it
    /// discards as duplicates after counting them in its feedback), about `bytes` of them, as
    /// one probe cluster.
    private func probeCopies(to user: Int, bytes: Int, cluster: ProbeCluster, at now: Duration) -> [Copy] {
        guard let subscriber = subscribers[user] else { return [] }
        var copies: [Copy] = []
        var remaining = bytes
        for (slot, rewriter) in subscriber.rewriters.sorted(by: { $0.slot.index < $1.slot.index })
        where slot.kind.needsKeyframe && subscriber.retransmissionStreams[slot] != nil {
            guard let last = rewriter.lastSequenceNumber, let source = rewriter.source,
                routes.sources(of: SlotDestination(subscriber: user, slot: slot)).contains(source)
            else { continue }
            var outgoing = last
            var tried = 0
            while remaining > 0, tried < Self.probeRepeatLimit {
                tried += 1
                defer { outgoing &-= 1 }
                guard let origin = rewriter.origin(of: outgoing), origin.source == source,
                    let cached = upTracks[source]?.repair?.cache.packet(origin.sequenceNumber),
                    let format = upTracks[source]?.format, let slotFormat = subscriber.slotFormats[slot],
                    let translation = catalog.translation(from: format, to: slotFormat)
                else { continue }
                let header = origin.header(originalTimestamp: Self.read32(cached, at: 4))
                let rtx = nextRetransmission(to: user, in: slot)
                if let rtx { subscriber.retransmissionAcceptance.probed(on: rtx.ssrc, of: rewriter.outgoingSSRC) }
                copies.append(Copy(
                    subscriber: user, packet: cached, header: header, translation: translation,
                    retransmittedAs: rtx,
                    transportSequence: transportSequence(to: user, size: cached.count, translation: translation, at: now, cluster: cluster)))
                remaining -= cached.count
            }
            if remaining <= 0 { break }
        }
        return copies
    }

    /// How far back a probe reaches for packets to repeat.
    static let probeRepeatLimit = 64
}
