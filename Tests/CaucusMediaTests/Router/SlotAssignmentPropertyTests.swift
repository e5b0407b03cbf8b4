import CaucusMedia
import CaucusSFU
import PropertyBased
import Testing

/// Random sequences of who is eligible and who speaks: the assignment fills the slots with the
/// best-ranked streams and never moves a stream that keeps its place among them.
@Suite struct SlotAssignmentProperties {
    @Test(.shrinking(false))
    func aStreamThatStaysChosenNeverMovesAndFreedSlotsAreRefilled() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...1_000_000_000)) { seed in
            var random = SplitMix(seed: UInt64(seed))
            let layout = SlotLayout(audio: 3, video: Int.random(in: 0...4, using: &random), screenShare: 1)
            var previous = SlotAssignment.empty
            var activity: [Int: SpeakerActivity] = [:]
            var kept = 0
            for step in 0..<60 {
                let eligible = (1...8).flatMap { publisher in
                    StreamKind.allCases.compactMap { kind in
                        Int.random(in: 0..<3, using: &random) == 0 ? nil : PublishedStream(publisher: publisher, kind: kind)
                    }
                }.shuffled(using: &random)
                for publisher in 1...8 where Int.random(in: 0..<4, using: &random) == 0 {
                    activity[publisher] = SpeakerActivity(
                        audioLevel: Bool.random(using: &random) ? UInt8.random(in: 0...127, using: &random) : nil,
                        lastSpoke: .milliseconds(step * 100 + publisher))
                }
                let next = SlotAssignment.assign(eligible: eligible, activity: activity, layout: layout, previous: previous)
                // Only the layout's slots, each stream of its own kind, none twice, only eligible ones.
                #expect(Set(next.sources.keys).isSubset(of: Set(layout.slots)))
                #expect(next.sources.allSatisfy { $0.key.kind == $0.value.kind })
                #expect(Set(next.sources.values).count == next.sources.count)
                #expect(Set(next.sources.values).isSubset(of: Set(eligible)))
                for kind in StreamKind.allCases {
                    let available = Set(eligible.filter { $0.kind == kind }).count
                    let filled = next.sources.keys.filter { $0.kind == kind }
                    // Every slot is used while there is someone to put in it, lowest first.
                    #expect(filled.count == min(available, layout.count(of: kind)), "\(kind) slots left empty")
                }
                // A stream in a slot before and after is in the same slot.
                for (slot, stream) in previous.sources {
                    if let now = next.slot(of: stream) {
                        #expect(now == slot, "\(stream) moved from \(slot) to \(now)")
                        kept += 1
                    }
                }
                // When everyone eligible fits, nobody who was in a slot and is still eligible loses it.
                for kind in StreamKind.allCases where Set(eligible.filter { $0.kind == kind }).count <= layout.count(of: kind) {
                    for (slot, stream) in previous.sources where stream.kind == kind && eligible.contains(stream) {
                        #expect(next.source(in: slot) == stream, "\(stream) lost its slot though everyone fits")
                    }
                }
                // The same inputs give the same assignment.
                #expect(SlotAssignment.assign(eligible: eligible, activity: activity, layout: layout, previous: previous) == next)
                previous = next
            }
            #expect(kept > 0)
        }
    }
}

/// The assignment by a speaker ranking's order picks its few streams in one pass; it must
/// equal the assignment defined plainly: repeats removed, a stable sort by position in the
/// order's list (unlisted last, in the caller's order), the pinned stream first, the first
/// `count` taken, placed keeping previous slots.
@Suite struct SlotAssignmentByOrderProperties {
    static func plainly(
        eligible: [PublishedStream], order: SpeakerOrder, layout: SlotLayout, previous: SlotAssignment, pinned: PublishedStream?
    ) -> [SlotID: PublishedStream] {
        var result: [SlotID: PublishedStream] = [:]
        for kind in StreamKind.allCases where layout.count(of: kind) > 0 {
            var candidates: [PublishedStream] = []
            for stream in eligible where stream.kind == kind && !candidates.contains(stream) { candidates.append(stream) }
            let list = kind == .audio ? order.audio : kind == .video ? order.video : []
            let position = { (stream: PublishedStream) in list.firstIndex(of: stream.publisher) ?? Int.max }
            var ranked = candidates.enumerated().sorted { (position($0.element), $0.offset) < (position($1.element), $1.offset) }.map(\.element)
            if let pinned, ranked.contains(pinned) { ranked = [pinned] + ranked.filter { $0 != pinned } }
            let chosen = ranked.prefix(layout.count(of: kind))
            let slots = (0..<layout.count(of: kind)).map { SlotID(kind: kind, index: $0) }
            let kept = slots.filter { previous.source(in: $0).map(chosen.contains) ?? false }
            for slot in kept { result[slot] = previous.source(in: slot) }
            let newcomers = chosen.filter { stream in !kept.contains { previous.source(in: $0) == stream } }
            for (stream, slot) in zip(newcomers, slots.filter { !kept.contains($0) }) { result[slot] = stream }
        }
        return result
    }

    @Test(.shrinking(false))
    func onePassEqualsTheSortedDefinition() async {
        await propertyCheck(count: 2_000, input: Gen.int(in: 0...1_000_000_000)) { seed in
            var random = SplitMix(seed: UInt64(seed))
            let publishers = Int.random(in: 1...30, using: &random)
            let stream = { (random: inout SplitMix) in
                PublishedStream(publisher: Int.random(in: 1...publishers, using: &random), kind: StreamKind.allCases.randomElement(using: &random)!)
            }
            // Repeats and streams of every kind mixed, as a handover may list them.
            let eligible = (0..<Int.random(in: 0...60, using: &random)).map { _ in stream(&random) }
            let list = { (random: inout SplitMix) in (0..<Int.random(in: 0...8, using: &random)).map { _ in Int.random(in: 1...publishers, using: &random) } }
            let order = SpeakerOrder(audio: list(&random), video: list(&random))
            let layout = SlotLayout(
                audio: Int.random(in: 0...4, using: &random), video: Int.random(in: 0...4, using: &random),
                screenShare: Int.random(in: 0...2, using: &random))
            let previous = SlotAssignment.assign(eligible: (0..<8).map { _ in stream(&random) }, order: .empty, layout: layout, previous: .empty)
            let pinned = Bool.random(using: &random) ? stream(&random) : nil
            let assigned = SlotAssignment.assign(eligible: eligible, order: order, layout: layout, previous: previous, pinned: pinned)
            let expected = Self.plainly(eligible: eligible, order: order, layout: layout, previous: previous, pinned: pinned)
            #expect(assigned.sources == expected, "eligible \(eligible), order \(order), layout \(layout), previous \(previous.sources), pinned \(String(describing: pinned))")
        }
    }
}
