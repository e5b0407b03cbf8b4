import CaucusMedia

/// Each subscriber's own simulcast layer, from its own downlink. A subscriber whose answer
/// negotiated transport-wide congestion control on the sections the server sends gets every
/// copy that can carry one stamped with its own transport-wide number (where the publisher's
/// packet has the extension's room: Chromium's do), reports what arrived, and so has a
/// bandwidth estimate (``DownlinkEstimator``). Its slots show, of each simulcast publication,
/// the best layer the estimate holds (the layers' rates as measured each second, the estimate
/// shared between the simulcast publications it shows; ``layer(of:budget:known:current:)``);
/// when a better layer needs more, the link is probed
/// (``ProbeSchedule``) with a cluster of repeats of packets it already has, as RTX. Audio
/// never yields: it is forwarded whatever the estimate, and only video layers are chosen by it.
/// A subscriber without the feedback gets each publication's busiest layer.
extension ForwardingEngine {
    struct Downlink {
        var estimator = DownlinkEstimator()
        var probe = ProbeSchedule()
        /// The layer (RID) shown of each simulcast publication, where chosen by the estimate.
        var layers: [PublishedStream: String] = [:]
        /// The better layer's need in bits per second, when one exists: what a probe must reach.
        var probeTarget: Int?
    }

    static let layerChoiceInterval = Duration.milliseconds(250)

    func learnDownlink(of user: Int, plan: MediaSlotPlan) {
        let estimates = plan.receiveSlots.contains { $0.format?.headerExtensionIDs[RTPExtensionURI.transportWideCC] != nil }
        downlinks[user] = estimates ? Downlink() : nil
    }

    func forgetDownlink(of user: Int) {
        downlinks[user] = nil
    }

    /// The incoming SSRC `user`'s slots show of `stream`: its chosen layer, else the stream's.
    func incomingSSRC(of stream: PublishedStream, for user: Int) -> UInt32? {
        // The publication first: most streams are not simulcast, and reading a downlink copies it.
        if let publication = simulcast[stream], let rid = downlinks[user]?.layers[stream], let ssrc = publication.ssrcs[rid] { return ssrc }
        return ssrcsByStream[stream]
    }

    /// The transport-wide number of a copy to `subscriber`, when its translation can carry one
    /// (a probe's copies name their cluster).
    func transportSequence(
        to subscriber: Int, size: Int, translation: HeaderTranslation, at now: Duration, cluster: ProbeCluster? = nil
    ) -> UInt16? {
        guard translation.carriesTransportSequence else { return nil }
        return downlinks[subscriber]?.estimator.stamp(size: size, at: now, cluster: cluster)
    }

    /// A subscriber's transport-cc feedback on what the server sent it.
    func receiveDownlinkFeedback(_ feedback: RTCPOpaqueFeedback, from user: Int, now: Duration) {
        guard feedback.packetType == RTCPFeedbackType.transport, feedback.format == RTCPTransportFeedback.format,
            downlinks[user] != nil,
            let decoded = RTCPTransportFeedback(
                senderSSRC: feedback.senderSSRC, mediaSSRC: feedback.mediaSSRC, feedbackControlInformation: feedback.feedbackControlInformation)
        else { return }
        downlinks[user]!.estimator.receive(decoded, at: now)
    }

    /// On the media loop's timer: probes due, and every ``layerChoiceInterval`` each
    /// subscriber's layers from its estimate (a recomputation of those whose choice changed).
    func tickDownlinks(now: Duration) -> (probes: [Copy], changes: Changes?) {
        guard !downlinks.isEmpty else { return ([], nil) }
        var probes: [Copy] = []
        for user in downlinks.keys.sorted() {
            let downlink = downlinks[user]!
            let step = downlinks[user]!.probe.step(toReach: downlink.probeTarget, estimator: downlink.estimator, at: now)
            if let rate = step.confirmed { downlinks[user]!.estimator.raise(to: rate) }
            if let (cluster, bytes) = step.send { probes += probeCopies(to: user, bytes: bytes, cluster: cluster, at: now) }
        }
        guard now - lastLayerChoice >= Self.layerChoiceInterval else { return (probes, nil) }
        lastLayerChoice = now
        let changed = chooseLayers()
        return (probes, changed.isEmpty ? nil : recompute(changed, now: now))
    }

    /// Each estimating subscriber's layer of each simulcast publication it shows; returns the
    /// subscribers whose choice changed.
    private func chooseLayers() -> [Int] {
        var changed: [Int] = []
        for user in downlinks.keys.sorted() {
            guard let assignment = assignments[user], let subscriber = subscribers[user] else { continue }
            let shown = Set(subscriber.rewriters.keys.compactMap { assignment.source(in: $0) }.filter { simulcast[$0] != nil })
            let estimate = downlinks[user]!.estimator.estimate
            var target: Int?
            var layers: [PublishedStream: String] = [:]
            for stream in shown {
                let publication = simulcast[stream]!
                let current = downlinks[user]!.layers[stream] ?? publication.forwarded
                guard let (rid, rate, better) = Self.layer(of: publication, budget: estimate / shown.count, known: estimate > 0, current: current)
                else { continue }
                layers[stream] = rid
                if let better {
                    let need = estimate - rate + better
                    target = min(target ?? need, need)
                }
            }
            downlinks[user]!.probeTarget = target
            if downlinks[user]!.layers != layers {
                downlinks[user]!.layers = layers
                changed.append(user)
            }
        }
        return changed
    }

    /// The layer of `publication` for a subscriber with `budget` bits per second for it that
    /// shows `current`, its rate, and the rate of the next better layer. Layers are ranked by
    /// their rates over the last second (a layer that sent nothing is paused, not ranked):
    /// - nothing known of the link yet: the lowest, from which probes climb (a slow link is
    ///   never flooded while it starts);
    /// - the best that fits the budget; the current layer stays until the budget falls a sixth
    ///   below its rate (the estimate of a calm link is about what it is sent);
    /// - none fits: the current layer if it is no more than the lowest (a paused low layer is
    ///   waited for, not traded for a high one), else the lowest.
    static func layer(
        of publication: SimulcastPublication, budget: Int, known: Bool, current: String?
    ) -> (rid: String, rate: Int, better: Int?)? {
        let ranked = publication.ssrcs.compactMap { rid, ssrc in publication.rates[ssrc].map { (rid: rid, rate: $0) } }
            .filter { $0.rate > 0 }.sorted { $0.rate < $1.rate }
        let shown = current.flatMap { rid in publication.ssrcs[rid].map { (rid: rid, rate: publication.rates[$0] ?? 0) } }
        guard let lowest = ranked.first else { return shown.map { ($0.rid, $0.rate, nil) } }
        var chosen = known ? ranked.last { $0.rate <= budget } : lowest
        if known, let shown, chosen.map({ shown.rate > $0.rate }) ?? true, shown.rate * 5 <= budget * 6 {
            chosen = shown
        }
        let picked = chosen ?? shown.map { $0.rate <= lowest.rate ? $0 : lowest } ?? lowest
        return (picked.rid, picked.rate, ranked.first { $0.rate > picked.rate }?.rate)
    }

    /// Repeats of the packets a subscriber's video slots last received, as RTX (which it
    /// discards as duplicates after counting them in its feedback), about `bytes` of them, as
    /// one probe cluster.
    private func probeCopies(to user: Int, bytes: Int, cluster: ProbeCluster, at now: Duration) -> [Copy] {
        guard let subscriber = subscribers[user] else { return [] }
        var copies: [Copy] = []
        var remaining = bytes
        for (slot, rewriter) in subscriber.rewriters.sorted(by: { $0.key.index < $1.key.index })
        where slot.kind.needsKeyframe && subscriber.retransmissionStreams[slot] != nil {
            guard let last = rewriter.lastSequenceNumber, let source = rewriter.source,
                routed[SlotDestination(subscriber: user, slot: slot)]?.contains(source) == true
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
                copies.append(Copy(
                    subscriber: user, packet: cached, header: header, translation: translation,
                    retransmittedAs: nextRetransmission(to: user, in: slot),
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
