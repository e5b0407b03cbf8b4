import CaucusCodecs
import CaucusMedia
import Testing

/// libvpx's VP8 through CaucusCodecs: pictures of a colour come back that colour, the first
/// frame and requested ones are keyframes, and frames survive RTP packetisation (RFC 7741) and
/// reassembly on the way.
@Suite struct VP8CodecTests {
    static let size = (width: 160, height: 120)

    static func encodeColour(_ frames: Int, red: UInt8, green: UInt8, blue: UInt8, keyframeAt: Set<Int> = []) throws -> [VP8Encoder.Frame] {
        let encoder = try VP8Encoder(width: size.width, height: size.height, kilobitsPerSecond: 300)
        let picture = I420Picture(width: size.width, height: size.height, red: red, green: green, blue: blue)
        var out: [VP8Encoder.Frame] = []
        for index in 0..<frames { out += try encoder.encode(picture, keyframe: keyframeAt.contains(index)) }
        return out
    }

    @Test func aColourComesBackThatColour() throws {
        let frames = try Self.encodeColour(10, red: 200, green: 40, blue: 40, keyframeAt: [6])
        #expect(frames.count == 10)
        #expect(frames.map(\.isKeyframe) == [true, false, false, false, false, false, true, false, false, false])
        #expect(frames.allSatisfy { VP8Payload.isKeyframe($0.data) == $0.isKeyframe }, "the frame tag agrees with libvpx")
        let decoder = try VP8Decoder()
        var last: I420Picture?
        for frame in frames { last = try decoder.decode(frame.data).last ?? last }
        let picture = try #require(last)
        #expect(picture.width == Self.size.width && picture.height == Self.size.height)
        let (red, green, blue) = picture.meanColour
        #expect(abs(red - 200) < 12 && abs(green - 40) < 12 && abs(blue - 40) < 12, "\(picture.meanColour)")
    }

    /// Encoded, split into RTP packets, delivered out of order, reassembled, decoded.
    @Test func framesCrossRTPAndDecode() throws {
        let frames = try Self.encodeColour(8, red: 40, green: 40, blue: 200)
        var sequencer = RTPPacketSequencer(ssrc: 9, payloadType: 96, firstSequenceNumber: 65_530)
        var packets: [RTPPacket] = []
        for (index, frame) in frames.enumerated() {
            let payloads = try VP8Payload.payloads(
                for: frame.data, descriptor: VP8PayloadDescriptor(startsPartition: true, pictureID: .long(UInt16(index))), maximumPayloadSize: 40)
            packets += sequencer.packets(payloads: payloads, timestamp: UInt32(index) * 6_000, markerOnLast: true)
        }
        #expect(packets.count > frames.count, "the keyframe spans packets")
        // Pairs swapped: reordering the assembler must undo.
        for index in stride(from: 0, to: packets.count - 1, by: 2) { packets.swapAt(index, index + 1) }
        var assembler = FrameAssembler(codec: .vp8, firstSequenceNumber: 65_530)
        var assembled: [AssembledFrame] = []
        for packet in packets {
            for event in assembler.receive(packet) { if case .frame(let frame) = event { assembled.append(frame) } }
        }
        #expect(assembled.map(\.bytes) == frames.map(\.data))
        let decoder = try VP8Decoder()
        var shown = 0
        for frame in assembled { shown += try decoder.decode(frame.bytes).count }
        #expect(shown == frames.count)
    }

    @Test func garbageIsRefusedWithTheLibrarysReason() throws {
        let decoder = try VP8Decoder()
        let error = #expect(throws: CodecError.self) { try decoder.decode([0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09]) }
        #expect(error?.library == .vpx)
        #expect(throws: CodecError.self) { try VP8Encoder(width: 0, height: 0) }
    }
}
