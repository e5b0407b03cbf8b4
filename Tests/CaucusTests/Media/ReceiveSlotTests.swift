import CaucusMedia
import CaucusSFU
import Testing

@testable import Caucus

/// The SDK's receiver of one slot, driven directly: VP8 frames split across packets, with
/// reordering and loss, are delivered whole or not at all, NACKs go out for what is missing,
/// and a keyframe is asked for when a picture cannot be completed.
@Suite struct ReceiveSlotTests {
    /// A VP8 key frame (frame tag P clear, start code) or delta frame of `size` bytes.
    static func vp8Frame(keyframe: Bool, size: Int = 300, fill: UInt8) -> [UInt8] {
        var bytes = [UInt8](repeating: fill, count: size)
        bytes[0] = keyframe ? 0x10 : 0x11
        if keyframe { (bytes[3], bytes[4], bytes[5]) = (0x9D, 0x01, 0x2A) }
        return bytes
    }

    /// The packets of consecutive frames, each split into payloads of at most 120 bytes.
    static func packets(_ frames: [[UInt8]], firstSequenceNumber: UInt16 = 65_530) throws -> [[RTPPacket]] {
        var sequencer = RTPPacketSequencer(ssrc: 7, payloadType: 96, firstSequenceNumber: firstSequenceNumber)
        var picture = VP8PayloadDescriptor.PictureID.long(100)
        return try frames.enumerated().map { index, frame in
            let payloads = try VP8Payload.payloads(
                for: frame, descriptor: VP8PayloadDescriptor(startsPartition: true, pictureID: picture), maximumPayloadSize: 120)
            picture = picture.next
            return sequencer.packets(payloads: payloads, timestamp: UInt32(index * 6_000), markerOnLast: true)
        }
    }

    @Test func aSplitFrameArrivingOutOfOrderIsDeliveredWholeOnceTheGapFills() throws {
        let key = Self.vp8Frame(keyframe: true, fill: 1)
        let frames = try Self.packets([key])
        #expect(frames[0].count == 3)
        var slot = ReceiveSlot(codec: .vp8)
        let now = Duration.seconds(1)
        let first = slot.receive(frames[0][0], now: now)
        #expect(first.frames.isEmpty && first.nacks.isEmpty)
        let third = slot.receive(frames[0][2], now: now)
        #expect(third.frames.isEmpty)
        #expect(third.nacks == [frames[0][1].sequenceNumber])
        let second = slot.receive(frames[0][1], now: now + .milliseconds(5))
        #expect(second.frames.map(\.bytes) == [key])
        #expect(second.frames.first?.isKeyframe == true)
        #expect(second.frames.first?.timestamp == 0)
        // Nothing missing any more: no NACK again, no keyframe request.
        #expect(slot.tick(now: now + .seconds(1)) == ReceiveSlot.Output())
    }

    @Test func aLostPacketIsAskedForAgainThenGivenUpOnWithAKeyframeRequestAndNothingCorruptIsDelivered() throws {
        let key = Self.vp8Frame(keyframe: true, fill: 1)
        let delta = Self.vp8Frame(keyframe: false, fill: 2)
        let key2 = Self.vp8Frame(keyframe: true, fill: 3)
        let frames = try Self.packets([key, delta, delta, key2])
        var slot = ReceiveSlot(codec: .vp8)
        var now = Duration.seconds(1)
        var delivered: [[UInt8]] = []
        var requestedKeyframe = false
        // The first key frame whole.
        for packet in frames[0] { delivered += slot.receive(packet, now: now).frames.map(\.bytes) }
        #expect(delivered == [key])
        // The next delta frame loses its middle packet; the following delta is whole.
        let lost = frames[1][1].sequenceNumber
        var nacked: [UInt16] = []
        for packet in frames[1] where packet.sequenceNumber != lost {
            let output = slot.receive(packet, now: now)
            nacked += output.nacks
            delivered += output.frames.map(\.bytes)
        }
        #expect(nacked == [lost])
        for packet in frames[2] { delivered += slot.receive(packet, now: now).frames.map(\.bytes) }
        #expect(delivered == [key], "a frame behind the gap waits")
        // Asked again after 100 ms, at most three times in all.
        now += .milliseconds(100)
        #expect(slot.tick(now: now).nacks == [lost])
        now += .milliseconds(100)
        #expect(slot.tick(now: now).nacks == [lost])
        now += .milliseconds(100)
        let givenUp = slot.tick(now: now)
        #expect(givenUp.nacks.isEmpty)
        // Given up after 300 ms: the broken frame is never delivered, nor the delta that
        // refers to it; a keyframe is asked for.
        #expect(givenUp.frames.isEmpty)
        requestedKeyframe = givenUp.requestKeyframe
        #expect(requestedKeyframe)
        // The next key frame resumes the picture.
        for packet in frames[3] { delivered += slot.receive(packet, now: now).frames.map(\.bytes) }
        #expect(delivered == [key, key2])
        // The retransmission that comes too late changes nothing.
        #expect(slot.receive(frames[1][1], now: now) == ReceiveSlot.Output())
    }

    @Test func videoStartsAtAKeyframeAndAsksForOneAtMostEveryThreeHundredMilliseconds() throws {
        let frames = try Self.packets([
            Self.vp8Frame(keyframe: false, fill: 1), Self.vp8Frame(keyframe: false, fill: 2),
            Self.vp8Frame(keyframe: true, fill: 3), Self.vp8Frame(keyframe: false, fill: 4),
        ])
        var slot = ReceiveSlot(codec: .vp8)
        let now = Duration.seconds(5)
        var requests = 0
        var delivered: [EncodedFrame] = []
        for (index, frame) in frames.enumerated() {
            for packet in frame {
                let output = slot.receive(packet, now: now + .milliseconds(100 * index))
                requests += output.requestKeyframe ? 1 : 0
                delivered += output.frames
            }
        }
        #expect(requests == 1, "two deltas within 300 ms: one request")
        #expect(delivered.map(\.bytes) == [frames[2], frames[3]].map { Self.bytes(of: $0) })
        #expect(delivered.map(\.isKeyframe) == [true, false])
        // A new publisher in the slot: its deltas wait for its keyframe again.
        #expect(slot.publisherChanged(now: now + .seconds(1)).requestKeyframe)
        let next = try Self.packets([Self.vp8Frame(keyframe: false, fill: 5)], firstSequenceNumber: frames[3].last!.sequenceNumber &+ 1)
        #expect(next[0].allSatisfy { slot.receive($0, now: now + .seconds(1)).frames.isEmpty })
    }

    @Test func audioSkipsAGapAfterSixtyMillisecondsWithoutNacks() {
        var slot = ReceiveSlot(codec: .opus)
        var sequencer = RTPPacketSequencer(ssrc: 9, payloadType: 111, firstSequenceNumber: 10)
        let packets = (0..<4).flatMap { sequencer.packets(payloads: [[0xF8, UInt8($0)]], timestamp: UInt32($0 * 960), markerOnLast: false) }
        let now = Duration.seconds(2)
        #expect(slot.receive(packets[0], now: now).frames.map(\.bytes) == [[0xF8, 0]])
        let afterGap = slot.receive(packets[2], now: now)
        #expect(afterGap.nacks.isEmpty && afterGap.frames.isEmpty)
        #expect(slot.tick(now: now + .milliseconds(59)).frames.isEmpty)
        #expect(slot.tick(now: now + .milliseconds(60)).frames.map(\.bytes) == [[0xF8, 2]])
        #expect(slot.receive(packets[3], now: now + .milliseconds(61)).frames.map(\.timestamp) == [3 * 960])
    }

    @Test func audioFramesCarryTheLevelTheirPacketSaid() {
        var slot = ReceiveSlot(codec: .opus, audioLevelID: 4)
        var sequencer = RTPPacketSequencer(ssrc: 9, payloadType: 111, firstSequenceNumber: 1)
        var packets = (0..<2).flatMap { sequencer.packets(payloads: [[0xF8, UInt8($0)]], timestamp: UInt32($0 * 960), markerOnLast: false) }
        packets[0].headerExtension = RTPHeaderExtension(elements: [RTPHeaderExtensionElement(id: 4, data: [0x80 | 30])])
        #expect(slot.receive(packets[0], now: .zero).frames.map(\.audioLevel) == [-30])
        #expect(slot.receive(packets[1], now: .zero).frames.map(\.audioLevel) == [nil])
    }

    /// A frame's bytes as its packets carry them (each payload past its descriptor).
    static func bytes(of packets: [RTPPacket]) -> [UInt8] {
        packets.flatMap { packet in Array(packet.payload.dropFirst(VP8PayloadDescriptor.parse(packet.payload[...])!.length)) }
    }

    /// A jump of the slot's numbers by 512 or more (the server's skip past an earlier source's
    /// packets that will never come, `SlotRewriter.staleSkip`) starts the slot again: the
    /// keyframe after it is delivered at once, not after a gap's patience, and nothing in the
    /// jump is asked for.
    @Test func aJumpStartsTheSlotAgainAtTheKeyframeAfterIt() throws {
        let key = Self.vp8Frame(keyframe: true, fill: 1)
        let delta = Self.vp8Frame(keyframe: false, fill: 2)
        let key2 = Self.vp8Frame(keyframe: true, fill: 3)
        let before = try Self.packets([key, delta], firstSequenceNumber: 100)
        var slot = ReceiveSlot(codec: .vp8)
        let now = Duration.seconds(1)
        var delivered: [[UInt8]] = []
        for packet in before[0] { delivered += slot.receive(packet, now: now).frames.map(\.bytes) }
        // The delta frame's first packet is lost and never comes: its rest waits behind the gap.
        for packet in before[1].dropFirst() { delivered += slot.receive(packet, now: now).frames.map(\.bytes) }
        #expect(delivered == [key])
        let jumpFrom = before[1].last!.sequenceNumber &+ 600  // below the assembler's own span of 1,024
        let after = try Self.packets([key2], firstSequenceNumber: jumpFrom)
        var nacks: [UInt16] = []
        for packet in after[0] {
            let output = slot.receive(packet, now: now + .milliseconds(10))
            delivered += output.frames.map(\.bytes)
            nacks += output.nacks
        }
        #expect(delivered == [key, key2], "the keyframe after the jump, at once")
        #expect(nacks.isEmpty, "nothing in the jump asked for")
    }
}
