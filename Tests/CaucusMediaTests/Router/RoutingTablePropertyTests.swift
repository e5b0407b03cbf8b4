import CaucusMedia
import CaucusSFU
import PropertyBased
import Testing

/// The routing table changed route by route (what a recomputation does) holds exactly the
/// routes a plain set of them holds, in order (by subscriber, then slot) and each once,
/// however the adds and removes come: many subscribers to one SSRC, the same route added twice,
/// routes removed that were never there.
@Suite struct RoutingTableProperties {
    @Test(.shrinking(false))
    func addsAndRemovesKeepExactlyTheRoutesInOrder() async {
        await propertyCheck(count: 200, input: Gen.int(in: 0...1_000_000_000)) { seed in
            var random = SplitMix(seed: UInt64(seed))
            var table = RoutingTable.empty
            var model: [UInt32: Set<SlotDestination>] = [:]
            let subscribers = Int.random(in: 1...300, using: &random)
            for _ in 0..<2_000 {
                let ssrc = UInt32.random(in: 1...3, using: &random)
                let destination = SlotDestination(
                    subscriber: Int.random(in: 0..<subscribers, using: &random),
                    slot: SlotID(kind: Bool.random(using: &random) ? .audio : .video, index: Int.random(in: 0...2, using: &random)))
                if Int.random(in: 0..<3, using: &random) == 0 {
                    table.remove(destination, for: ssrc)
                    model[ssrc]?.remove(destination)
                } else {
                    table.add(destination, for: ssrc)
                    model[ssrc, default: []].insert(destination)
                }
            }
            for ssrc in UInt32(1)...3 {
                let expected = (model[ssrc] ?? []).sorted { ($0.subscriber, $0.slot) < ($1.subscriber, $1.slot) }
                #expect(table.destinations(of: ssrc) == expected)
            }
            #expect(table.routedSSRCs == Set(model.filter { !$0.value.isEmpty }.keys))
        }
    }
}
