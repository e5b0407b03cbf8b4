import CaucusMedia
import Testing

@testable import Caucus

/// The SDK's sender of one stream, driven directly: what an app's frames become on the wire.
@Suite struct SendStreamTests {
    @Test func aVP8FrameIsCutIntoPacketsThatTheAssemblerPutsBackTogether() throws {
        var stream = SendStream(codec: .vp8, ssrc: 0xABCD)
        let frame = ReceiveSlotTests.vp8Frame(keyframe: true, size: 3_000, fill: 7)
        let first = try stream.packets(for: EncodedFrame(codec: .vp8, bytes: frame, timestamp: 90_000, isKeyframe: true))
        let delta = ReceiveSlotTests.vp8Frame(keyframe: false, fill: 8)
        let second = try stream.packets(for: EncodedFrame(codec: .vp8, bytes: delta, timestamp: 96_000, isKeyframe: false))
        #expect(first.count == 3, "3,000 bytes in payloads of at most \(SendStream.maximumPayloadSize)")
        #expect(first.allSatisfy { $0.payload.count <= SendStream.maximumPayloadSize && $0.ssrc == 0xABCD && $0.payloadType == 96 })
        #expect(first.map(\.marker) == [false, false, true])
        // Consecutive numbers across frames, one timestamp per frame, 6,000 ticks apart.
        let numbers = (first + second).map(\.sequenceNumber)
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
        #expect(Set(first.map(\.timestamp)).count == 1 && second[0].timestamp &- first[0].timestamp == 6_000)
        // Each frame has its own PictureID, the next one.
        let pictures = [first[0], second[0]].map { VP8PayloadDescriptor.parse($0.payload[...])?.descriptor.pictureID }
        #expect(pictures[0]?.next == pictures[1])

        var assembler = FrameAssembler(codec: .vp8, firstSequenceNumber: first[0].sequenceNumber)
        let events = (first + second).flatMap { assembler.receive($0) }
        guard case .frame(let whole)? = events.first else {
            Issue.record("no frame: \(events)")
            return
        }
        #expect(whole.bytes == frame && whole.isKeyframe)
    }

    @Test func anH264AccessUnitIsCutIntoPacketsThatTheAssemblerPutsBackTogether() throws {
        var stream = SendStream(codec: .h264, ssrc: 9)
        let key = SDKH264Tests.accessUnit(1, keyframe: true)
        let delta = SDKH264Tests.accessUnit(2, keyframe: false)
        let packets = try stream.packets(for: EncodedFrame(codec: .h264, bytes: key, timestamp: 0, isKeyframe: true))
            + stream.packets(for: EncodedFrame(codec: .h264, bytes: delta, timestamp: 6_000, isKeyframe: false))
        #expect(packets.allSatisfy { $0.payloadType == 102 && $0.payload.count <= SendStream.maximumPayloadSize })
        var assembler = FrameAssembler(codec: .h264, firstSequenceNumber: packets[0].sequenceNumber)
        let frames = packets.flatMap { assembler.receive($0) }.compactMap { event -> AssembledFrame? in
            if case .frame(let frame) = event { frame } else { nil }
        }
        #expect(frames.map(\.bytes) == [key, delta])
        #expect(frames.map(\.isKeyframe) == [true, false])
        // A frame with no NAL unit in it is refused.
        #expect(throws: SessionError.self) { try stream.packets(for: EncodedFrame(codec: .h264, bytes: [9, 9, 9], timestamp: 0, isKeyframe: false)) }
    }

    @Test func aNackIsAnsweredFromTheLastPacketsSent() throws {
        var stream = SendStream(codec: .vp8, ssrc: 1)
        var sent: [RTPPacket] = []
        for index in 0..<400 {
            let bytes = ReceiveSlotTests.vp8Frame(keyframe: index == 0, size: 1_500, fill: 1)
            sent += try stream.packets(for: EncodedFrame(codec: .vp8, bytes: bytes, timestamp: UInt32(index), isKeyframe: index == 0))
        }
        #expect(sent.count == 800)
        let recent = sent.suffix(3).map(\.sequenceNumber)
        #expect(stream.retransmissions(of: recent) == Array(sent.suffix(3)))
        // Kept: the last 512 only.
        #expect(stream.retransmissions(of: [sent[0].sequenceNumber, sent[800 - 512].sequenceNumber]) == [sent[800 - 512]])
    }

    @Test func opusFramesAreOnePacketEachWithTheirLevel() throws {
        var stream = SendStream(codec: .opus, ssrc: 2, audioLevelID: 3)
        let loud = try stream.packets(for: EncodedFrame(codec: .opus, bytes: [0xF8, 1, 2], timestamp: 960, isKeyframe: true, audioLevel: -12))
        #expect(loud.count == 1 && loud[0].payload == [0xF8, 1, 2] && loud[0].payloadType == 111 && !loud[0].marker)
        // RFC 6464: V set, then the level as -dBov.
        #expect(loud[0].headerExtension?.element(id: 3) == [0x80 | 12])
        let silent = try stream.packets(for: EncodedFrame(codec: .opus, bytes: [0xF8], timestamp: 1_920, isKeyframe: true, audioLevel: -300))
        #expect(silent[0].headerExtension?.element(id: 3) == [127])
        let unmeasured = try stream.packets(for: EncodedFrame(codec: .opus, bytes: [0xF8], timestamp: 2_880, isKeyframe: true))
        #expect(unmeasured[0].headerExtension == nil)
        // Audio is not kept for NACKs (the server repairs video only).
        #expect(stream.retransmissions(of: [loud[0].sequenceNumber]).isEmpty)
    }

    @Test func whatAStreamCannotCarryIsRefused() {
        var audio = SendStream(codec: .opus, ssrc: 2)
        #expect(throws: SessionError.self) { try audio.packets(for: EncodedFrame(codec: .vp8, bytes: [1], timestamp: 0, isKeyframe: false)) }
        #expect(throws: SessionError.self) { try audio.packets(for: EncodedFrame(codec: .opus, bytes: [], timestamp: 0, isKeyframe: true)) }
        #expect(throws: SessionError.self) {
            try audio.packets(for: EncodedFrame(codec: .opus, bytes: [UInt8](repeating: 1, count: 1_500), timestamp: 0, isKeyframe: true))
        }
    }

    @Test func aCaptureTimeBecomesTheCodecsClock() {
        #expect(EncodedFrame(codec: .opus, bytes: [1], captureTime: .milliseconds(20), isKeyframe: true).timestamp == 960)
        #expect(EncodedFrame(codec: .vp8, bytes: [1], captureTime: .seconds(2), isKeyframe: false).timestamp == 180_000)
        #expect(EncodedFrame(codec: .vp8, bytes: [1], captureTime: .milliseconds(1_500), isKeyframe: false).timestamp == 135_000)
        // Every Opus frame is a keyframe, whatever the caller says.
        #expect(EncodedFrame(codec: .opus, bytes: [1], timestamp: 0, isKeyframe: false).isKeyframe)
    }
}
