import CaucusMedia

/// One subscriber's downlink as the server sees it: its bandwidth estimate from its own
/// transport-cc feedback, its probes, the layer it shows of each simulcast publication, and
/// what a probe must reach for a better one.
struct Downlink {
    var estimator = DownlinkEstimator()
    var probe = ProbeSchedule()
    /// The layer (RID) shown of each simulcast publication, where chosen by the estimate.
    var layers: [PublishedStream: String] = [:]
    /// The better layer's need in bits per second, when one exists: what a probe must reach.
    var probeTarget: Int?
}

/// The subscribers' downlinks: a part of the ``ForwardingEngine`` with state of its own. Per
/// subscriber whose answer negotiated transport-wide congestion control on the sections the
/// server sends, a ``Downlink``: the copies it is sent are stamped here, its feedback feeds the
/// estimate, its probes step here, and every ``layerChoiceInterval`` the layers it shows of
/// the simulcast publications its slots show are chosen from the estimate
/// (``layer(of:budget:known:current:)``). Which publications a subscriber shows, and the probe
/// copies themselves, are the engine's.
struct SubscriberDownlinks {
    static let layerChoiceInterval = Duration.milliseconds(250)

    private var downlinks: [Int: Downlink] = [:]
    private var lastLayerChoice: Duration = .zero

    var isEmpty: Bool { downlinks.isEmpty }

    /// The subscribers with an estimate, in order.
    var users: [Int] { downlinks.keys.sorted() }

    subscript(user: Int) -> Downlink? { downlinks[user] }

    /// `user`'s new peer: an estimate of its own when any section it receives on negotiated
    /// transport-cc, none otherwise (what an earlier peer measured is forgotten either way).
    mutating func learn(_ user: Int, plan: MediaSlotPlan) {
        let estimates = plan.receiveSlots.contains { $0.format?.headerExtensionIDs[RTPExtensionURI.transportWideCC] != nil }
        downlinks[user] = estimates ? Downlink() : nil
    }

    mutating func forget(_ user: Int) {
        downlinks[user] = nil
    }

    /// The layer `user`'s estimate chose of `stream`, if any.
    func layer(of stream: PublishedStream, for user: Int) -> String? {
        downlinks[user]?.layers[stream]
    }

    /// The transport-wide number of a copy of `size` bytes to `user` (a probe's name their
    /// cluster); nil when it has no estimate.
    mutating func stamp(to user: Int, size: Int, at now: Duration, cluster: ProbeCluster?) -> UInt16? {
        // Changed in place, by index: through `downlinks[user]?`, the dictionary's accessor
        // allocated three times for every copy stamped (the Forwarding benchmark's transport-cc
        // rooms counted them), one of them the size of the downlink.
        guard let index = downlinks.index(forKey: user) else { return nil }
        return downlinks.values[index].estimator.stamp(size: size, at: now, cluster: cluster)
    }

    /// Whether `user` has an estimate (its transport-cc feedback is read).
    func estimates(_ user: Int) -> Bool { downlinks[user] != nil }

    /// `user`'s transport-cc feedback on what the server sent it.
    mutating func receive(_ feedback: RTCPTransportFeedbackView, from user: Int, at now: Duration) {
        // In place, by index, as ``stamp(to:size:at:cluster:)``.
        guard let index = downlinks.index(forKey: user) else { return }
        downlinks.values[index].estimator.receive(feedback, at: now)
    }

    /// Each subscriber's probe, a step on: a rate a probe confirmed raises its estimate; returns
    /// the probe clusters due now, in the subscribers' order, each with the bytes it should carry.
    mutating func stepProbes(at now: Duration) -> [(user: Int, cluster: ProbeCluster, bytes: Int)] {
        var due: [(user: Int, cluster: ProbeCluster, bytes: Int)] = []
        for user in users {
            let downlink = downlinks[user]!
            let step = downlinks[user]!.probe.step(toReach: downlink.probeTarget, estimator: downlink.estimator, at: now)
            if let rate = step.confirmed { downlinks[user]!.estimator.raise(to: rate) }
            if let (cluster, bytes) = step.send { due.append((user, cluster, bytes)) }
        }
        return due
    }

    /// Whether the layers are due to be chosen again (every ``layerChoiceInterval``); when they
    /// are, the interval starts over at `now`.
    mutating func layerChoiceDue(at now: Duration) -> Bool {
        guard now - lastLayerChoice >= Self.layerChoiceInterval else { return false }
        lastLayerChoice = now
        return true
    }

    /// `user`'s layer of each simulcast publication it shows (`shown`), from its estimate
    /// shared between them, and what a probe must reach for a better one. Returns whether its
    /// layers changed; false for a user without an estimate.
    mutating func choose(for user: Int, showing shown: [(stream: PublishedStream, publication: SimulcastPublication)]) -> Bool {
        guard let downlink = downlinks[user] else { return false }
        let estimate = downlink.estimator.estimate
        var target: Int?
        var layers: [PublishedStream: String] = [:]
        for (stream, publication) in shown {
            let current = downlink.layers[stream] ?? publication.forwarded
            guard let (rid, rate, better) = Self.layer(of: publication, budget: estimate / shown.count, known: estimate > 0, current: current)
            else { continue }
            layers[stream] = rid
            if let better {
                let need = estimate - rate + better
                target = min(target ?? need, need)
            }
        }
        downlinks[user]!.probeTarget = target
        guard downlink.layers != layers else { return false }
        downlinks[user]!.layers = layers
        return true
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
}
