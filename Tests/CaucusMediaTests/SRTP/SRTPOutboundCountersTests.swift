@testable import CaucusMedia
import Testing

/// The outbound counters kept inline for the first SSRCs and in a dictionary past them answer
/// as one dictionary would, through every mix of known and new SSRCs.
@Suite struct SRTPOutboundCountersTests {
    @Test func answersAsADictionaryWouldThroughManySSRCs() {
        var counters = SRTPOutboundCounters()
        var model: [UInt32: SRTPRolloverCounter] = [:]
        // Twenty SSRCs, well past the inline places, in an order that revisits early and late
        // ones alike (a linear congruential walk, the same every run).
        let ssrcs = (0..<20).map { 0xA000_0000 &+ UInt32($0) &* 0x0101_0101 }
        var state: UInt32 = 7
        for step in 0..<2_000 {
            state = state &* 1_664_525 &+ 1_013_904_223
            let ssrc = ssrcs[Int(state >> 16) % ssrcs.count]
            let position = counters.position(of: ssrc)
            #expect((position == nil) == (model[ssrc] == nil), "step \(step): SSRC \(ssrc) found \(position.debugDescription)")
            var counter = position.map(counters.counter(at:)) ?? SRTPRolloverCounter(first: UInt16(truncatingIfNeeded: step))
            #expect(counter == model[ssrc] ?? counter, "step \(step): SSRC \(ssrc) read another's counter")
            counter.accept(UInt64(step) << 10 | UInt64(ssrc & 0x3FF))
            counters.store(counter, for: ssrc, at: position)
            model[ssrc] = counter
            #expect(counters.count == model.count)
        }
        for ssrc in ssrcs {
            #expect(counters.position(of: ssrc).map(counters.counter(at:)) == model[ssrc])
        }
        #expect(counters.position(of: 0x0BAD_0000) == nil)
    }

    @Test func theFirstSSRCsAreKeptInlineAndTheRestApart() throws {
        var counters = SRTPOutboundCounters()
        for ssrc in UInt32(1)...UInt32(SRTPOutboundCounters.inlineCapacity + 3) {
            counters.store(SRTPRolloverCounter(first: UInt16(ssrc)), for: ssrc, at: counters.position(of: ssrc))
        }
        for ssrc in UInt32(1)...UInt32(SRTPOutboundCounters.inlineCapacity) {
            #expect(counters.position(of: ssrc) == .inline(Int(ssrc) - 1))
        }
        let past = try #require(counters.position(of: UInt32(SRTPOutboundCounters.inlineCapacity + 1)))
        guard case .overflow = past else {
            Issue.record("SSRC \(SRTPOutboundCounters.inlineCapacity + 1) is at \(past)")
            return
        }
        #expect(counters.count == SRTPOutboundCounters.inlineCapacity + 3)
    }
}
