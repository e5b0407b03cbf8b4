import CaucusMedia

/// Each subscriber's own simulcast layer, from its own downlink. A subscriber whose answer
/// negotiated transport-wide congestion control on the sections the server sends gets every
/// copy that can carry one stamped with its own transport-wide number (where the publisher's
/// packet has the extension's room: Chromium's do), reports what arrived, and so has a
/// bandwidth estimate (``DownlinkEstimator``). Its slots show, of each simulcast publication,
/// the best layer the estimate holds (the layers' rates as measured each second, the estimate
/// shared between the simulcast publications it shows; the current layer kept until the
/// estimate is a sixth below its rate); when a better layer needs more, the
/// link is probed (``ProbeSchedule``) with repeats of packets it already has, as RTX. Audio
/// never yields: it is forwarded whatever the estimate, and only video layers are chosen by it.
/// A subscriber without the feedback gets each publication's busiest layer.
extension SessionMediaRouter {
    struct Downlink {
        var estimator = DownlinkEstimator()
        var probe = ProbeSchedule()
        /// The layer (RID) shown of each simulcast publication, where chosen by the estimate.
        var layers: [PublishedStream: String] = [:]
        /// The better layer's need in bits per second, when one exists: what a probe must reach.
        var probeTarget: Int?
        /// Bytes sent since `windowStart`, and the rate of the last whole window.
        var bytesInWindow = 0
        var windowStart: Duration = .zero
        var sendingRate = 0

        mutating func stamp(size: Int, at now: Duration) -> UInt16 {
            bytesInWindow += size
            return estimator.stamp(size: size, at: now)
        }
    }

    static let layerChoiceInterval = Duration.milliseconds(250)
    static let sendingRateWindow = Duration.milliseconds(500)

    func learnDownlink(of user: Int, plan: MediaSlotPlan) {
        let estimates = plan.receiveSlots.contains { $0.format?.headerExtensionIDs[RTPExtensionURI.transportWideCC] != nil }
        downlinks[user] = estimates ? Downlink() : nil
    }

    func forgetDownlink(of user: Int) {
        downlinks[user] = nil
    }

    /// The incoming SSRC `user`'s slots show of `stream`: its chosen layer, else the stream's.
    func incomingSSRC(of stream: PublishedStream, for user: Int) -> UInt32? {
        if let rid = downlinks[user]?.layers[stream], let ssrc = simulcast[stream]?.ssrcs[rid] { return ssrc }
        return ssrcsByStream[stream]
    }

    /// The transport-wide number of a copy to `subscriber`, when its translation can carry one.
    func transportSequence(to subscriber: Int, size: Int, translation: HeaderTranslation, at now: Duration) -> UInt16? {
        guard translation.carriesTransportSequence else { return nil }
        return downlinks[subscriber]?.stamp(size: size, at: now)
    }

    /// A subscriber's transport-cc feedback on what the server sent it.
    func receiveDownlinkFeedback(_ feedback: RTCPOpaqueFeedback, from user: Int, now: Duration) {
        guard feedback.packetType == RTCPFeedbackType.transport, feedback.format == RTCPTransportFeedback.format,
            downlinks[user] != nil,
            let decoded = RTCPTransportFeedback(
                senderSSRC: feedback.senderSSRC, mediaSSRC: feedback.mediaSSRC, feedbackControlInformation: feedback.feedbackControlInformation)
        else { return }
        downlinks[user]!.estimator.receive(decoded, at: now)
        if downlinks[user]!.estimator.lastOveruse == now { downlinks[user]!.probe.overused(at: now) }
    }

    /// On the media loop's timer: probes due, and every ``layerChoiceInterval`` each
    /// subscriber's layers from its estimate (a recomputation of those whose choice changed).
    func tickDownlinks(now: Duration, interval: Duration) -> (probes: [Copy], changes: Changes?) {
        guard !downlinks.isEmpty else { return ([], nil) }
        var probes: [Copy] = []
        for user in Array(downlinks.keys) {
            if now - downlinks[user]!.windowStart >= Self.sendingRateWindow {
                let elapsed = DownlinkEstimator.microseconds(now - downlinks[user]!.windowStart)
                downlinks[user]!.sendingRate = Int(Int64(downlinks[user]!.bytesInWindow) * 8_000_000 / max(elapsed, 1))
                downlinks[user]!.bytesInWindow = 0
                downlinks[user]!.windowStart = now
            }
            let downlink = downlinks[user]!
            let bytes = downlinks[user]!.probe.bytes(
                toReach: downlink.probeTarget, sending: downlink.sendingRate, estimator: downlink.estimator, interval: interval, at: now)
            if bytes > 0 { probes += probeCopies(to: user, bytes: bytes, at: now) }
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
                let ranked = publication.ssrcs.compactMap { rid, ssrc in publication.rates[ssrc].map { (rid, $0) } }
                    .filter { $0.1 > 0 }.sorted { $0.1 < $1.1 }
                guard let lowest = ranked.first else { continue }
                // Before the first feedback the subscriber gets what everyone gets.
                guard estimate > 0 else { continue }
                let budget = estimate / shown.count
                var chosen = ranked.last { $0.1 <= budget } ?? lowest
                // The estimate of a calm link is about what it is sent: the current layer stays
                // until the estimate falls clearly below it.
                if let current = downlinks[user]!.layers[stream] ?? publication.forwarded, let kept = ranked.first(where: { $0.0 == current }),
                    kept.1 > chosen.1, kept.1 * 5 <= budget * 6
                {
                    chosen = kept
                }
                layers[stream] = chosen.0
                if let better = ranked.first(where: { $0.1 > chosen.1 }) {
                    let need = estimate - chosen.1 + better.1
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

    /// Repeats of the packets a subscriber's video slots last received, as RTX (which it
    /// discards as duplicates after counting them in its feedback), about `bytes` of them.
    private func probeCopies(to user: Int, bytes: Int, at now: Duration) -> [Copy] {
        guard let subscriber = subscribers[user] else { return [] }
        var copies: [Copy] = []
        var remaining = bytes
        for (slot, rewriter) in subscriber.rewriters.sorted(by: { $0.key.index < $1.key.index })
        where slot.kind.needsKeyframe && subscriber.retransmissionStreams[slot] != nil {
            guard let last = rewriter.lastSequenceNumber, let source = rewriter.source else { continue }
            var outgoing = last
            var tried = 0
            while remaining > 0, tried < Self.probeRepeatLimit {
                tried += 1
                defer { outgoing &-= 1 }
                guard let origin = rewriter.origin(of: outgoing), origin.source == source,
                    let cached = caches[source]?.packet(origin.sequenceNumber),
                    let format = formatsBySSRC[source], let slotFormat = subscriber.slotFormats[slot],
                    let translation = catalog.translation(from: format, to: slotFormat)
                else { continue }
                let header = origin.header(originalTimestamp: Self.read32(cached, at: 4))
                copies.append(Copy(
                    subscriber: user, packet: cached, header: header, translation: translation,
                    retransmittedAs: nextRetransmission(to: user, in: slot),
                    transportSequence: transportSequence(to: user, size: cached.count, translation: translation, at: now)))
                remaining -= cached.count
            }
            if remaining <= 0 { break }
        }
        return copies
    }

    /// How far back a probe reaches for packets to repeat.
    static let probeRepeatLimit = 64
}
