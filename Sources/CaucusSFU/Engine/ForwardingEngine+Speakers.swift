import CaucusMedia

/// Loudest speakers: each location's `SpeakerRanking`, fed by the RFC 6464 level of every
/// audio packet its publishers send (read in place, before the packet is forwarded, whether
/// or not anyone's slot holds it yet), evaluated on the media loop's timer. A new order
/// re-fills the slots of everyone in the location and is announced to them in their slot map
/// frames (`activeSpeakers`, at most once per `SpeakerRanking.Configuration.minimumInterval`).
extension ForwardingEngine {
    /// Feeds the level of an audio packet, if its stream carries one (`audioLevel`: its
    /// up-track's extension ID and publisher, read by the caller in place).
    @inline(__always)
    func hearLevel(of packet: [UInt8], audioLevel: (id: UInt8, publisher: Int)?, at arrival: Duration) {
        guard let (id, publisher) = audioLevel, let data = RTPHeaderFields.extensionElement(id: id, in: packet),
            let byte = data.first, let location = records.location(of: publisher)
        else { return }
        speakers.hear(publisher, level: byte & 0x7F, in: location, at: arrival)
    }

    /// Evaluates every location's ranking at `now`; each new order re-fills its location's
    /// slots and is told to everyone there. Only publishers someone there may hear are ranked:
    /// one whose audio the location does not forward (a muted main session, a room without
    /// audio, a paused participant) is never listed as speaking.
    ///
    /// A location whose users cost more than `slice` to recompute (a main session where a
    /// thousand publish: a thousand subscribers of a thousand streams each) joins the sliced
    /// routing queue instead (`ForwardingEngine+SlicedRouting.swift`): its users keep their
    /// slots until their slice, which re-fills them and tells them the new order with their
    /// slot maps, and forwarding goes on between slices. Nothing is forbidden by a new order,
    /// so nothing is cut meanwhile.
    func evaluateSpeakers(now: Duration, slice: Int = .max) -> Changes {
        let changed = speakers.evaluate(at: now) { location in
            // Everyone connected in a location may receive the same streams but its own: two
            // members' lists together name every publisher anyone there hears.
            guard let here = records.members(of: location) else { return nil }
            var heard = Set<Int>()
            var lists = 0
            for member in here where lists < 2 {
                guard let streams = records.eligible(member) else { continue }
                lists += 1
                for stream in streams where stream.kind == .audio { heard.insert(stream.publisher) }
            }
            return heard
        }
        var changes = Changes()
        var enqueued = false
        for location in changed {
            if !recording.isEmpty { outputs.append(.record(.speakers(location: location, Array(speakers.speakers(in: location))))) }
            let here = (records.members(of: location) ?? []).sorted()
            guard routingCost(of: here) <= slice else {
                pendingRouting.enqueue(here, speakerNews: here)
                enqueued = true
                continue
            }
            var recomputed = recompute(here, now: now)
            announce(Array(speakers.speakers(in: location)), to: here, in: &recomputed)
            changes.append(recomputed)
        }
        // The first slice now, as for a handover; the rest with `continueRouting`.
        if enqueued { changes.append(recomputePending(now: now, slice: slice)) }
        return changes
    }
}
