import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// A video slot whose subscriber still misses an earlier source's packets (never repaired)
/// jumps its numbers past them once per source, so a receiver waiting behind the gap drops
/// what it holds instead of showing it later.
@Suite struct StaleSkipTests {
    static func numbers(_ slot: inout SlotRewriter, from ssrc: UInt32, _ sequence: ClosedRange<UInt16>, keyframe: Bool = false) -> [UInt16] {
        sequence.compactMap {
            slot.rewrite(ssrc: ssrc, sequenceNumber: $0, timestamp: UInt32($0) * 3000, payloadLength: 100,
                         arrival: .milliseconds(Int($0) * 33), startsKeyframe: keyframe)?.sequenceNumber
        }
    }

    @Test func theNextPacketJumpsOnceAndTheSourceKeepsItsSpacing() {
        var slot = SlotRewriter(slot: SlotID(kind: .video, index: 0), outgoingSSRC: 1, initialSequenceNumber: 65_500)
        slot.select(source: 20)
        #expect(Self.numbers(&slot, from: 20, 10...12) == [65_500, 65_501, 65_502])
        let (first, second) = (slot.skipPastStaleNumbers(), slot.skipPastStaleNumbers())
        #expect(first && !second, "once per source")
        let after = Self.numbers(&slot, from: 20, 13...15)
        #expect(after == [65_502 &+ SlotRewriter.staleSkip, 65_503 &+ SlotRewriter.staleSkip, 65_504 &+ SlotRewriter.staleSkip])
        // A late packet from before the jump maps where it was sent, for a NACK's answer.
        #expect(slot.origin(of: 65_501)?.sequenceNumber == 11 && slot.origin(of: after[1])?.sequenceNumber == 14)
        #expect(Self.numbers(&slot, from: 20, 16...16) == [after[2] &+ 1], "no second jump")
    }

    @Test func aNewSourceMayJumpAgainAndAWaitingSlotJumpsAtItsFirstPacket() {
        var slot = SlotRewriter(slot: SlotID(kind: .video, index: 0), outgoingSSRC: 1)
        slot.select(source: 20)
        _ = Self.numbers(&slot, from: 20, 1...3)
        let asksKeyframe = slot.select(source: 30, policy: .atKeyframe(keepingCurrent: false))
        let skips = slot.skipPastStaleNumbers()
        #expect(asksKeyframe && skips, "the switch allows one more")
        #expect(Self.numbers(&slot, from: 30, 50...50).isEmpty, "still waiting for 30's keyframe")
        #expect(Self.numbers(&slot, from: 30, 51...51, keyframe: true) == [2 &+ SlotRewriter.staleSkip])
    }

    @Test func anAudioSlotNeverJumps() {
        var slot = SlotRewriter(slot: SlotID(kind: .audio, index: 0), outgoingSSRC: 1)
        slot.select(source: 20)
        _ = Self.numbers(&slot, from: 20, 1...3)
        let skips = slot.skipPastStaleNumbers()
        #expect(!skips)
        #expect(Self.numbers(&slot, from: 20, 4...4) == [3])
    }

    /// A new source's first packet stamped a few milliseconds before the slot's last (arrival
    /// stamps from a batch read out of order) steps the timestamp by one, and never traps.
    @Test func anArrivalBeforeTheLastStepsTheTimestampByOne() {
        var slot = SlotRewriter(slot: SlotID(kind: .video, index: 0), outgoingSSRC: 1)
        slot.select(source: 20)
        let last = slot.rewrite(ssrc: 20, sequenceNumber: 1, timestamp: 0, payloadLength: 10, arrival: .milliseconds(500))
        slot.select(source: 30)
        let first = slot.rewrite(ssrc: 30, sequenceNumber: 9, timestamp: 77, payloadLength: 10, arrival: .milliseconds(495), startsKeyframe: true)
        #expect(first?.timestamp == last!.timestamp &+ 1)
    }
}
