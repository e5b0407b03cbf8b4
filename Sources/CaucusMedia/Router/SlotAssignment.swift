/// Which stream fills which of one subscriber's slots.
public struct SlotAssignment: Hashable, Sendable {
    public private(set) var sources: [SlotID: PublishedStream]

    public init(sources: [SlotID: PublishedStream] = [:]) { self.sources = sources }

    public static let empty = SlotAssignment()

    public func source(in slot: SlotID) -> PublishedStream? { sources[slot] }

    public func slot(of stream: PublishedStream) -> SlotID? { sources.first { $0.value == stream }?.key }

    /// Assigns `eligible` streams to `layout`'s slots, starting from `previous`:
    ///
    /// 1. for each kind, the slots go to the best-ranked eligible streams (`SlotPreference`);
    /// 2. a chosen stream that already had a slot keeps it (no needless switch);
    /// 3. the other chosen streams fill the free slots, best first, lowest index first.
    ///
    /// The result depends only on the arguments.
    public static func assign(
        eligible: [PublishedStream], activity: [Int: SpeakerActivity], layout: SlotLayout, previous: SlotAssignment
    ) -> SlotAssignment {
        assign(eligible: eligible, layout: layout, previous: previous) { SlotPreference.ranked($0, kind: $1, activity: activity) }
    }

    /// The same, ranked by a speaker ranking's published order (`SpeakerRanking`): audio slots
    /// go to its top speakers, video slots to its most recent ones, then to the publishers it
    /// never heard, in the caller's order; screen share by the caller's order. A `pinned`
    /// stream that is eligible (the voice broadcast) ranks before all of them, whatever the
    /// ranking says: it always has a slot of its kind if there is one.
    public static func assign(
        eligible: [PublishedStream], order: SpeakerOrder, layout: SlotLayout, previous: SlotAssignment, pinned: PublishedStream? = nil
    ) -> SlotAssignment {
        assign(eligible: eligible, layout: layout, previous: previous) { candidates, kind in
            let ranked = SlotPreference.ranked(candidates, kind: kind, order: order)
            guard let pinned, pinned.kind == kind, ranked.contains(pinned) else { return ranked }
            return [pinned] + ranked.filter { $0 != pinned }
        }
    }

    private static func assign(
        eligible: [PublishedStream], layout: SlotLayout, previous: SlotAssignment,
        ranked: ([PublishedStream], StreamKind) -> [PublishedStream]
    ) -> SlotAssignment {
        var result = SlotAssignment()
        for kind in StreamKind.allCases {
            let count = layout.count(of: kind)
            guard count > 0 else { continue }
            let candidates = unique(eligible.filter { $0.kind == kind })
            // A subscriber has a few slots: the chosen and the placed are searched, not hashed
            // (a thousand users' start assigns them all at once, on the forwarding loop).
            let chosen = Array(ranked(candidates, kind).prefix(count))
            var free: [Int] = []
            var placed: [PublishedStream] = []
            for index in 0..<count {
                let slot = SlotID(kind: kind, index: index)
                if let kept = previous.sources[slot], chosen.contains(kept) {
                    result.sources[slot] = kept
                    placed.append(kept)
                } else {
                    free.append(index)
                }
            }
            for (stream, index) in zip(chosen.filter { !placed.contains($0) }, free) {
                result.sources[SlotID(kind: kind, index: index)] = stream
            }
        }
        return result
    }

    /// `streams` without repeats, first occurrence kept: searched when short (a room), hashed
    /// when long (a large main session).
    private static func unique(_ streams: [PublishedStream]) -> [PublishedStream] {
        if streams.count <= 64 {
            var kept: [PublishedStream] = []
            kept.reserveCapacity(streams.count)
            for stream in streams where !kept.contains(stream) { kept.append(stream) }
            return kept
        }
        var seen = Set<PublishedStream>()
        return streams.filter { seen.insert($0).inserted }
    }
}
