import CaucusMedia
import CaucusSFU
import Testing

/// A video slot switching source at the new source's keyframe: the subscriber's decoder never
/// gets a picture predicted from one it never had.
@Suite struct SlotSwitchAtKeyframeTests {
    let old: UInt32 = 0xA
    let new: UInt32 = 0xB

    /// A slot carrying `old`, with two of its packets forwarded.
    func slotOnOld() -> SlotRewriter {
        var slot = SlotRewriter(slot: SlotID(kind: .video, index: 0), outgoingSSRC: 0x5107)
        slot.select(source: old)
        _ = slot.rewrite(ssrc: old, sequenceNumber: 100, timestamp: 1000, payloadLength: 10, arrival: .zero)
        _ = slot.rewrite(ssrc: old, sequenceNumber: 101, timestamp: 4000, payloadLength: 10, arrival: .milliseconds(33))
        return slot
    }

    @Test func theCurrentSourceGoesOnUntilTheNewOnesKeyframe() throws {
        var slot = slotOnOld()
        let asks = slot.select(source: new, policy: .atKeyframe(keepingCurrent: true))
        #expect(asks, "ask the new source for a keyframe")
        #expect(slot.source == old && slot.pending == new)
        let sent1 = slot.rewrite(ssrc: new, sequenceNumber: 7, timestamp: 90, payloadLength: 10, arrival: .milliseconds(40))
        #expect(sent1 == nil,
                "the new source's delta frames wait")
        let oldAgain = slot.rewrite(ssrc: old, sequenceNumber: 102, timestamp: 7000, payloadLength: 10, arrival: .milliseconds(66))
        let stillOld = try #require(oldAgain)
        #expect(stillOld.sequenceNumber == 2)
        let keyframe = slot.rewrite(ssrc: new, sequenceNumber: 8, timestamp: 3090, payloadLength: 10, arrival: .milliseconds(80), startsKeyframe: true)
        let switched = try #require(keyframe)
        #expect(switched.sequenceNumber == 3, "the keyframe follows on at +1")
        #expect(slot.source == new && slot.pending == nil)
        let sent2 = slot.rewrite(ssrc: old, sequenceNumber: 103, timestamp: 10000, payloadLength: 10, arrival: .milliseconds(99))
        #expect(sent2 == nil)
        let sent3 = slot.rewrite(ssrc: new, sequenceNumber: 9, timestamp: 3090, payloadLength: 10, arrival: .milliseconds(100))
        #expect(sent3?.sequenceNumber == 4)
    }

    @Test func aSourceThatMayNoLongerBeSeenStopsAtOnce() {
        var slot = slotOnOld()
        let asks = slot.select(source: new, policy: .atKeyframe(keepingCurrent: false))
        #expect(asks)
        #expect(slot.source == nil && slot.pending == new)
        let sent4 = slot.rewrite(ssrc: old, sequenceNumber: 102, timestamp: 7000, payloadLength: 10, arrival: .milliseconds(66))
        #expect(sent4 == nil)
        let sent5 = slot.rewrite(ssrc: new, sequenceNumber: 7, timestamp: 90, payloadLength: 10, arrival: .milliseconds(70))
        #expect(sent5 == nil)
        let sent6 = slot.rewrite(ssrc: new, sequenceNumber: 8, timestamp: 90, payloadLength: 10, arrival: .milliseconds(71), startsKeyframe: true)
        #expect(sent6?.sequenceNumber == 2)
    }

    /// Already waiting for `new` while showing `old`, when `old` may no longer be seen: asked
    /// again for `new`, the slot stops showing `old` at once (before, it kept `old` until
    /// `new`'s keyframe, so a user who left a room went on seeing it).
    @Test func aShownSourceThatMayNoLongerBeSeenStopsWhileTheWaitGoesOn() {
        var slot = slotOnOld()
        slot.select(source: new, policy: .atKeyframe(keepingCurrent: true))
        let again = slot.select(source: new, policy: .atKeyframe(keepingCurrent: false))
        #expect(!again, "already asked for its keyframe")
        #expect(slot.source == nil && slot.pending == new)
        let fromOld = slot.rewrite(ssrc: old, sequenceNumber: 102, timestamp: 7000, payloadLength: 10, arrival: .milliseconds(66))
        #expect(fromOld == nil)
        let keyframe = slot.rewrite(ssrc: new, sequenceNumber: 8, timestamp: 90, payloadLength: 10, arrival: .milliseconds(71), startsKeyframe: true)
        #expect(keyframe?.sequenceNumber == 2)
    }

    @Test func theWaitIsBounded() {
        var slot = slotOnOld()
        slot.select(source: new, policy: .atKeyframe(keepingCurrent: true))
        let sent7 = slot.rewrite(ssrc: new, sequenceNumber: 1, timestamp: 90, payloadLength: 10, arrival: .seconds(1))
        #expect(sent7 == nil)
        let sent8 = slot.rewrite(ssrc: new, sequenceNumber: 2, timestamp: 180, payloadLength: 10, arrival: .seconds(1) + SlotRewriter.keyframeWait - .milliseconds(1))
        #expect(sent8 == nil)
        let sent9 = slot.rewrite(ssrc: new, sequenceNumber: 3, timestamp: 270, payloadLength: 10, arrival: .seconds(1) + SlotRewriter.keyframeWait)
        #expect(sent9 != nil)
        #expect(slot.source == new)
    }

    @Test func goingBackBeforeTheKeyframeCancelsTheWait() {
        var slot = slotOnOld()
        slot.select(source: new, policy: .atKeyframe(keepingCurrent: true))
        let again = slot.select(source: new, policy: .atKeyframe(keepingCurrent: true))
        #expect(!again, "already waiting for it")
        let back = slot.select(source: old, policy: .atKeyframe(keepingCurrent: true))
        #expect(!back, "back to the one it carries: no keyframe needed")
        #expect(slot.pending == nil && slot.source == old)
        let sent10 = slot.rewrite(ssrc: new, sequenceNumber: 8, timestamp: 90, payloadLength: 10, arrival: .milliseconds(80), startsKeyframe: true)
        #expect(sent10 == nil)
        let sent11 = slot.rewrite(ssrc: old, sequenceNumber: 102, timestamp: 7000, payloadLength: 10, arrival: .milliseconds(66))
        #expect(sent11?.sequenceNumber == 2)
    }

    /// Audio never waits: it has no keyframes.
    @Test func emptyingASlotOrAudioSwitchesAtOnce() {
        var slot = slotOnOld()
        let emptied = slot.select(source: nil, policy: .atKeyframe(keepingCurrent: true))
        #expect(!emptied)
        #expect(slot.source == nil && slot.pending == nil)
        var audio = SlotRewriter(slot: SlotID(kind: .audio, index: 0), outgoingSSRC: 1)
        let audioAsks = audio.select(source: old)
        #expect(!audioAsks)
        #expect(audio.source == old)
    }
}
