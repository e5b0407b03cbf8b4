import CaucusMedia
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
