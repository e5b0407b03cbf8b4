import CaucusMedia

/// Which stream fills which of one subscriber's slots.
public struct SlotAssignment: Hashable, Sendable {
    public private(set) var sources: [SlotID: PublishedStream]

    public init(sources: [SlotID: PublishedStream] = [:]) { self.sources = sources }

    public static let empty = SlotAssignment()

    public func source(in slot: SlotID) -> PublishedStream? { sources[slot] }

    public func slot(of stream: PublishedStream) -> SlotID? { sources.first { $0.value == stream }?.key }

    /// The same with only the slots `keep` accepts filled; the others empty.
    public func keeping(_ keep: (SlotID, PublishedStream) -> Bool) -> SlotAssignment {
        SlotAssignment(sources: sources.filter { keep($0.key, $0.value) })
    }

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
    ///
    /// Only the few streams that get a slot are picked, in one pass over `eligible` (no sort,
    /// no set): a subscriber of a large main session has a thousand eligible streams, and a
    /// new publisher there reassigns every subscriber at once, on the forwarding loop.
    public static func assign(
        eligible: [PublishedStream], order: SpeakerOrder, layout: SlotLayout, previous: SlotAssignment, pinned: PublishedStream? = nil
    ) -> SlotAssignment {
        var result = SlotAssignment()
        for kind in StreamKind.allCases {
            let count = layout.count(of: kind)
            guard count > 0 else { continue }
            let list: [Int] = switch kind {
            case .audio: order.audio
            case .video: order.video
            case .screenShare: []
            }
            let pinned = pinned.flatMap { $0.kind == kind && eligible.contains($0) ? $0 : nil }
            // Searched only where a stream could still get a slot: once the slots are filled
            // by listed speakers, a list's first few places (a thousand unlisted publishers
            // each search the list otherwise).
            var chosen = best(count - (pinned == nil ? 0 : 1), of: eligible, kind: kind, excluding: pinned) { stream, below in
                list.prefix(below).firstIndex(of: stream.publisher) ?? Int.max
            }
            if let pinned { chosen.insert(pinned, at: 0) }
            place(chosen, kind: kind, count: count, previous: previous, into: &result)
        }
        return result
    }

    /// The first `count` distinct streams of `kind` in `streams` by `rank` (lower first), ties
    /// in their order in `streams`: what a stable sort of them, repeats removed, begins with.
    /// `rank(stream, below)` may answer `Int.max` for any stream whose rank is `below` or more
    /// (none of those can be kept any more).
    static func best(
        _ count: Int, of streams: [PublishedStream], kind: StreamKind, excluding excluded: PublishedStream?,
        rank: (_ stream: PublishedStream, _ below: Int) -> Int
    ) -> [PublishedStream] {
        guard count > 0 else { return [] }
        // Kept sorted by rank; a later stream of the same rank never displaces an earlier one.
        var kept: [(rank: Int, stream: PublishedStream)] = []
        kept.reserveCapacity(count + 1)
        for stream in streams where stream.kind == kind && stream != excluded {
            let full = kept.count == count
            let rank = rank(stream, full ? kept[count - 1].rank : Int.max)
            if full, rank >= kept[count - 1].rank { continue }
            // A repeat ranks as its first occurrence did, which is kept (or beaten) already.
            guard !kept.contains(where: { $0.stream == stream }) else { continue }
            let at = kept.firstIndex { $0.rank > rank } ?? kept.count
            kept.insert((rank, stream), at: at)
            if kept.count > count { kept.removeLast() }
        }
        return kept.map(\.stream)
    }

    /// The activity-ranked assignment: every candidate ranked, the first `count` taken.
    private static func assign(
        eligible: [PublishedStream], layout: SlotLayout, previous: SlotAssignment,
        ranked: ([PublishedStream], StreamKind) -> [PublishedStream]
    ) -> SlotAssignment {
        var result = SlotAssignment()
        for kind in StreamKind.allCases {
            let count = layout.count(of: kind)
            guard count > 0 else { continue }
            let candidates = unique(eligible.filter { $0.kind == kind })
            place(Array(ranked(candidates, kind).prefix(count)), kind: kind, count: count, previous: previous, into: &result)
        }
        return result
    }

    /// Puts the `chosen` streams of `kind` in its `count` slots: one that had a slot in
    /// `previous` keeps it, the others fill the free slots in order, lowest index first.
    private static func place(
        _ chosen: [PublishedStream], kind: StreamKind, count: Int, previous: SlotAssignment, into result: inout SlotAssignment
    ) {
        // A subscriber has a few slots: the chosen and the placed are searched, not hashed
        // (a thousand users' start assigns them all at once, on the forwarding loop).
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
