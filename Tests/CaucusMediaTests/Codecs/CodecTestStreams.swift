@testable import CaucusMedia

/// One frame as a sender produced it: the packets it went out in and what a receiver's
/// decoder must get back.
struct SentFrame {
    var timestamp: UInt32
    var isKeyframe: Bool
    var decoderBytes: [UInt8]
    var packets: [RTPPacket]
}

/// Random encoded frames of each codec, packetised through the module's packetisers.
enum CodecTestStreams {
    /// A VP8 frame: a key frame starts with a frame tag whose P bit is clear and the start
    /// code (RFC 6386 §9.1); an inter frame's tag has P set.
    static func vp8Frame(keyframe: Bool, size: Int, using random: inout SplitMix) -> [UInt8] {
        var bytes = random.bytes(size...size)
        if keyframe {
            bytes = [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x80, 0x02, 0xE0, 0x01] + bytes
        } else {
            bytes.insert(0x11, at: 0)
        }
        return bytes
    }

    /// A NAL unit of `type` whose body has no start-code emulation (no two zero bytes in a
    /// row) and does not end in zero, as an encoder's emulation prevention guarantees.
    static func nalUnit(type: UInt8, size: Int, using random: inout SplitMix) -> [UInt8] {
        var unit: [UInt8] = [UInt8.random(in: 0...3, using: &random) << 5 | type]
        for _ in 0..<size {
            let byte = UInt8.random(in: 0...255, using: &random)
            unit.append(byte == 0 && unit.last == 0 ? 1 : byte)
        }
        if unit.last == 0 { unit[unit.count - 1] = 0x80 }
        return unit
    }

    /// An access unit: sometimes SPS and PPS before an IDR slice, otherwise one to four slices.
    static func accessUnit(keyframe: Bool, maximumSize: Int, using random: inout SplitMix) -> [[UInt8]] {
        var units: [[UInt8]] = []
        if keyframe {
            units.append(nalUnit(type: 7, size: Int.random(in: 3...20, using: &random), using: &random))
            units.append(nalUnit(type: 8, size: Int.random(in: 1...8, using: &random), using: &random))
        } else if Bool.random(using: &random) {
            units.append(nalUnit(type: 6, size: Int.random(in: 1...30, using: &random), using: &random))
        }
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            units.append(nalUnit(type: keyframe ? 5 : 1, size: Int.random(in: 0...maximumSize, using: &random), using: &random))
        }
        return units
    }

    /// `count` frames of `codec`, starting at the given sequence number and timestamp.
    static func frames(
        _ codec: FrameAssembler.Codec, count: Int, firstSequenceNumber: UInt16, firstTimestamp: UInt32,
        maximumPayloadSize: Int, maximumFrameSize: Int, using random: inout SplitMix
    ) throws -> [SentFrame] {
        var sequencer = RTPPacketSequencer(ssrc: 0x5EED, payloadType: 96, firstSequenceNumber: firstSequenceNumber)
        var timestamp = firstTimestamp
        var pictureID: VP8PayloadDescriptor.PictureID? = [nil, .short(0x7E), .long(0x7FFE)].randomElement(using: &random)!
        var frames: [SentFrame] = []
        for index in 0..<count {
            let keyframe = index == 0 || Int.random(in: 0..<8, using: &random) == 0
            let payloads: [[UInt8]]
            let decoderBytes: [UInt8]
            switch codec {
            case .opus:
                decoderBytes = random.bytes(1...min(maximumFrameSize, maximumPayloadSize))
                payloads = try OpusPayload.payloads(for: decoderBytes, maximumPayloadSize: maximumPayloadSize)
            case .vp8:
                decoderBytes = vp8Frame(keyframe: keyframe, size: Int.random(in: 0...maximumFrameSize, using: &random), using: &random)
                let descriptor = VP8PayloadDescriptor(
                    isNonReference: !keyframe && Bool.random(using: &random), startsPartition: true, pictureID: pictureID,
                    temporalLevelZeroIndex: Bool.random(using: &random) ? UInt8(index & 0xFF) : nil,
                    temporalLayer: Bool.random(using: &random) ? (UInt8(index % 3), keyframe) : nil,
                    keyIndex: Bool.random(using: &random) ? UInt8(index % 32) : nil)
                payloads = try VP8Payload.payloads(for: decoderBytes, descriptor: descriptor, maximumPayloadSize: maximumPayloadSize)
                pictureID = pictureID?.next
            case .h264:
                let units = accessUnit(keyframe: keyframe, maximumSize: maximumFrameSize, using: &random)
                decoderBytes = H264AnnexB.stream(of: units)
                payloads = try H264Payload.payloads(for: units, maximumPayloadSize: maximumPayloadSize)
            }
            let isKeyframe = codec == .opus || keyframe
            frames.append(SentFrame(
                timestamp: timestamp, isKeyframe: isKeyframe, decoderBytes: decoderBytes,
                packets: sequencer.packets(payloads: payloads, timestamp: timestamp, markerOnLast: codec != .opus || index == 0)))
            timestamp &+= UInt32.random(in: 1...6_000, using: &random)
        }
        return frames
    }
}
