import CaucusMedia

/// The engine's inputs and outputs, in the style of a sans-IO protocol engine: each input
/// (a peer's plan, a handover, a decrypted packet, the time) changes the state and queues what
/// the shell must do, which it takes with ``pollOutput(_:)``. Every input takes `now` on the
/// shell's monotonic clock; the engine never reads one.
extension ForwardingEngine {
    // MARK: - Peers and handovers

    /// A user's new peer (its offer's plan): its slots are filled, and so are the slots of
    /// those who may receive what it publishes (in slices of about `slice` when they are many:
    /// ``isRoutingPending``).
    public func addPeer(_ user: Int, plan: MediaSlotPlan, now: Duration, slice: Int = .max) {
        perform(add(user, plan: plan, now: now, slice: slice))
    }

    /// A user's peer is gone: its slots, and what others received from it, with it (their
    /// slots refilled in slices, as for ``addPeer(_:plan:now:slice:)``).
    public func removePeer(_ user: Int, now: Duration, slice: Int = .max) {
        perform(remove(user, now: now, slice: slice))
    }

    /// The session's "who may receive what" for the users whose eligibility changed.
    public func handle(_ handover: RoutingHandover, now: Duration) {
        perform(update(handover, now: now))
    }

    // MARK: - Packets

    /// A publisher's decrypted RTP: forwarded to every slot it fills (each copy renumbered for
    /// its subscriber and stamped with the subscriber's transport-wide number where it has
    /// one), cached for repairs, its losses and keyframes asked for.
    public func receive(rtp received: [UInt8], from user: Int, at arrival: Duration) {
        // Every packet counts for the publisher's congestion control, probes included.
        recordTransportSequence(of: received, from: user, at: arrival)
        if !simulcast.isEmpty, let changes = observeSimulcast(received, from: user, now: arrival) { perform(changes) }
        guard let packet = restoringRetransmission(received), packet.count >= 12, packet[0] >> 6 == 2 else { return }
        let ssrc = Self.read32(packet, at: 8)
        // The one lookup of the packet's up-track: the check below and the forwarding share it.
        let track = upTracks.index(forKey: ssrc)
        // A user's SRTP keys are its own, but the SSRC inside is the user's to write: one that
        // another user publishes would be forwarded (past a mute), recorded and heard as theirs.
        if let track, publisher(ofUpTrackAt: track) != user {
            counters.foreignSSRCs += 1
            return
        }
        if let track, !recording.isEmpty { tapForRecording(packet, track: track) }
        let feedback = forward(rtp: packet, ssrc: ssrc, track: track, arrival: arrival) { subscriber, header, translation in
            let transportSequence = transportSequence(to: subscriber, size: packet.count, translation: translation, at: arrival)
            outputs.append(.copy(
                Copy(subscriber: subscriber, packet: packet, header: header, translation: translation, transportSequence: transportSequence),
                .forward))
        }
        queue(feedback)
    }

    /// A user's decrypted RTCP, as a subscriber (NACKs, keyframe requests, transport-cc) and as
    /// a publisher (sender reports).
    public func receive(rtcp packet: [UInt8], from user: Int, at now: Duration) {
        // The engine's one routing, moved out while it is filled (a copy would be copied again
        // on its first write) and put back emptied with its storage kept.
        var routed = RoutedRTCP()
        swap(&routed, &routedRTCP)
        route(rtcp: packet, from: user, now: now, into: &routed)
        queue(routed.rtcp)
        for copy in routed.retransmissions { outputs.append(.copy(copy, .repair)) }
        routed.removeAll()
        swap(&routed, &routedRTCP)
    }

    /// The engine's periodic work, now (the shell calls it when ``nextDeadline`` says so,
    /// through ``handleDeadline(now:slice:)``; a test may call it at any time): lost publisher
    /// packets asked for again, transport-cc feedback, simulcast layers ranked, downlinks
    /// probed and their layers chosen, speakers ranked (a large location's new order, and a
    /// simulcast layer's many receivers, recomputed in slices of about `slice`, as a handover
    /// is: ``isRoutingPending``). Due again ``periodicInterval`` on.
    public func handleTimeout(now: Duration, slice: Int = .max) {
        periodic.ran(at: now)
        queue(tick(now: now))
        if let changes = rankSimulcastLayers(now: now, slice: slice) { perform(changes) }
        let (probes, layerChanges) = tickDownlinks(now: now)
        for copy in probes { outputs.append(.copy(copy, .probe)) }
        if let layerChanges { perform(layerChanges) }
        if !speakers.isEmpty { perform(evaluateSpeakers(now: now, slice: slice)) }
    }

    /// The repairs due at `now` only (what ``handleTimeout(now:slice:)`` also does):
    /// NACKs asked again, keyframes for the numbers given up.
    public func handleRepairs(now: Duration) {
        queue(repairsDue(now: now))
    }

    // MARK: - Output

    /// Hands each waiting output to `body`, oldest first, and empties the queue (keeping its
    /// storage: the packet path allocates nothing per packet for it). Outputs that `body`'s
    /// calls into the engine make wait for the next poll.
    public func pollOutput(_ body: (ForwardingOutput) -> Void) {
        // Each output is moved out of the queue, not copied: iterating the array copied each
        // one (its packet and translation retained) before `body` saw it, and emptying the
        // array released them again. The queue is taken out of the engine (the spare storage
        // in its place), reversed and popped from its end (`popLast` moves).
        var taken: [ForwardingOutput] = []
        swap(&taken, &outputs)
        swap(&outputs, &spareOutputs)
        Self.reverseByMoving(&taken)
        while let output = taken.popLast() { body(output) }
        spareOutputs = taken
    }

    /// Reverses `outputs` by moving each, where `reverse()`'s swaps copied one of the two (a
    /// retain and a release of its references per output: measured in docs/benchmarks.md).
    static func reverseByMoving(_ outputs: inout [ForwardingOutput]) {
        outputs.withUnsafeMutableBufferPointer { outputs in
            guard outputs.count > 1, let start = outputs.baseAddress else { return }
            // `low` and `high` stay within the buffer and meet in its middle; each step leaves
            // both places initialized.
            var (low, high) = (start, start + outputs.count - 1)
            while low < high {
                let moved = low.move()
                low.moveInitialize(from: high, count: 1)
                high.initialize(to: moved)
                low += 1
                high -= 1
            }
        }
    }

    /// RTCP for users, each with its purpose.
    private func queue(_ rtcp: [(user: Int, rtcp: [UInt8])]) {
        for (user, packet) in rtcp { outputs.append(.rtcp(user: user, packet: packet, ForwardingOutput.RTCPPurpose(classifying: packet))) }
    }

    /// A recomputation's keyframe requests and slot maps, queued; its counts added.
    func perform(_ changes: Changes) {
        counters.recomputations += changes.recomputed
        counters.slotSwitches += changes.slotSwitches
        for request in changes.keyframeRequests {
            outputs.append(.rtcp(user: request.publisher, packet: Self.pli(request.ssrc), .keyframeRequest))
        }
        // Who speaks, each with the slot map that follows from it.
        for (user, speakers, map) in changes.activeSpeakers { outputs.append(.slotMap(user: user, map, activeSpeakers: speakers)) }
        for (user, map) in changes.slotMaps { outputs.append(.slotMap(user: user, map, activeSpeakers: nil)) }
        for closing in changes.closings { outputs.append(.copy(closing, .closing)) }
    }
}
