@testable import CaucusMedia
import Testing

/// VP8 payload descriptors and frames (RFC 7741 §4.2, §4.4) and Opus payloads (RFC 7587 §4.2),
/// checked against hand-built bytes.
@Suite struct VP8PayloadTests {
    @Test func descriptorsEncodeAsRFC7741LaysThemOut() {
        let cases: [(VP8PayloadDescriptor, [UInt8], String)] = [
            (VP8PayloadDescriptor(startsPartition: true), [0x10], "S, PID 0, no extensions"),
            (VP8PayloadDescriptor(isNonReference: true, startsPartition: false, partitionIndex: 3), [0x23], "N, PID 3"),
            (VP8PayloadDescriptor(startsPartition: true, pictureID: .short(0x05)), [0x90, 0x80, 0x05], "I, 7-bit PictureID"),
            (VP8PayloadDescriptor(startsPartition: true, pictureID: .long(0x1234)), [0x90, 0x80, 0x92, 0x34], "I, 15-bit PictureID (M set)"),
            (
                VP8PayloadDescriptor(
                    startsPartition: true, pictureID: .short(0x05), temporalLevelZeroIndex: 0x07,
                    temporalLayer: (2, true), keyIndex: 3),
                [0x90, 0xF0, 0x05, 0x07, 0xA3], "I, L, T (TID 2, Y), K (KEYIDX 3)"
            ),
            (VP8PayloadDescriptor(startsPartition: false, keyIndex: 31), [0x80, 0x10, 0x1F], "K alone: TID and Y zero"),
            (VP8PayloadDescriptor(startsPartition: false, temporalLayer: (1, false)), [0x80, 0x20, 0x40], "T alone: KEYIDX zero"),
            (VP8PayloadDescriptor(startsPartition: true, temporalLevelZeroIndex: 0xFF), [0x90, 0x40, 0xFF], "L alone"),
        ]
        for (descriptor, bytes, what) in cases {
            #expect(descriptor.encoded() == bytes, "\(what)")
            let parsed = VP8PayloadDescriptor.parse((bytes + [0xAA])[...])
            #expect(parsed?.descriptor == descriptor, "\(what) reads back")
            #expect(parsed?.length == bytes.count, "\(what): its length")
        }
    }

    @Test func descriptorsCutShortAreRefused() {
        for bytes: [UInt8] in [[], [0x90], [0x90, 0x80], [0x90, 0x80, 0x80], [0x90, 0x40], [0x90, 0x20], [0x90, 0xF0, 0x05, 0x07]] {
            #expect(VP8PayloadDescriptor.parse(bytes[...]) == nil, "\(bytes)")
        }
    }

    @Test func pictureIDsWrapWithinTheirWidth() {
        #expect(VP8PayloadDescriptor.PictureID.short(0x7F).next == .short(0))
        #expect(VP8PayloadDescriptor.PictureID.long(0x7FFF).next == .long(0))
        #expect(VP8PayloadDescriptor.PictureID.long(0x00FF).next == .long(0x0100))
    }

    @Test func aFrameIsCutIntoEqualPartsWithinTheBudget() throws {
        let frame = Array(UInt8(0x11)...UInt8(0x1A))  // an inter frame of 10 bytes
        let descriptor = VP8PayloadDescriptor(startsPartition: false, pictureID: .short(5))
        let payloads = try VP8Payload.payloads(for: frame, descriptor: descriptor, maximumPayloadSize: 6)
        #expect(payloads == [
            [0x90, 0x80, 0x05, 0x11, 0x12, 0x13],
            [0x80, 0x80, 0x05, 0x14, 0x15, 0x16],
            [0x80, 0x80, 0x05, 0x17, 0x18],
            [0x80, 0x80, 0x05, 0x19, 0x1A],
        ])
        let frameBack = VP8Payload.frame(from: payloads.map { $0[...] })
        #expect(frameBack == CodecFrame(bytes: frame, isKeyframe: false))
        #expect(try VP8Payload.payloads(for: frame, descriptor: VP8PayloadDescriptor(startsPartition: true), maximumPayloadSize: 11)
            == [[0x10] + frame])
    }

    @Test func packetisingRefusesAnEmptyFrameAndABudgetWithoutRoom() {
        let descriptor = VP8PayloadDescriptor(startsPartition: true, pictureID: .long(1))
        #expect(throws: RTPPacketizationError.emptyFrame) {
            try VP8Payload.payloads(for: [], descriptor: descriptor, maximumPayloadSize: 100)
        }
        #expect(throws: RTPPacketizationError.payloadBudgetTooSmall(4)) {
            try VP8Payload.payloads(for: [1], descriptor: descriptor, maximumPayloadSize: 4)
        }
    }

    @Test func theKeyframeFlagIsThePBitAndAKeyframeNeedsItsStartCode() {
        let keyframe: [UInt8] = [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x80, 0x02, 0xE0, 0x01]
        #expect(VP8Payload.frame(from: [([0x10] + keyframe)[...]]) == CodecFrame(bytes: keyframe, isKeyframe: true))
        var wrongStartCode = keyframe
        wrongStartCode[4] = 0x02
        #expect(VP8Payload.frame(from: [([0x10] + wrongStartCode)[...]]) == nil, "a key frame without its start code")
        #expect(VP8Payload.frame(from: [([0x10] + keyframe.prefix(9))[...]]) == nil, "a key frame shorter than its header")
        #expect(VP8Payload.frame(from: [[0x10, 0x01][...]]) == CodecFrame(bytes: [0x01], isKeyframe: false))
    }

    @Test func payloadsThatDoNotMakeOneFrameAreRefused() {
        let cases: [([[UInt8]], String)] = [
            ([[0x00, 0x11]], "the first does not start a partition"),
            ([[0x11, 0x11]], "the first starts partition 1"),
            ([[0x10, 0x11], [0x10, 0x12]], "a second frame start"),
            ([[0x10, 0x11], [0x00]], "a payload with only its descriptor"),
            ([[0x10, 0x11], [0x12, 0x11], [0x11, 0x12]], "the partition index goes back"),
            ([[0x90, 0x80, 0x05, 0x11], [0x80, 0x80, 0x06, 0x12]], "the PictureID changes"),
            ([[0x90, 0x80, 0x05, 0x11], [0x00, 0x12]], "the PictureID disappears"),
            ([[0x90, 0x80]], "a descriptor cut short"),
            ([], "no payloads"),
        ]
        for (payloads, what) in cases {
            #expect(VP8Payload.frame(from: payloads.map { $0[...] }) == nil, "\(what)")
        }
        #expect(VP8Payload.frame(from: [[0x10, 0x11], [0x11, 0x12], [0x01, 0x13]].map { $0[...] }) != nil, "later partitions are allowed")
    }

    /// The recorder's in-place read finds, in a payload that lies inside a larger buffer (a
    /// datagram in a batch), what `frame(from:)` copies out: the index is the buffer's, not the
    /// payload's from zero.
    @Test func aWholeFrameReadInPlaceIsWhatFrameFromCopies() {
        var keyframe: [UInt8] = [0x00, 0x00, 0x00, 0x9D, 0x01, 0x2A, 0x10, 0x00, 0x10, 0x00]
        keyframe += [0xAB, 0xCD]
        let payloads: [(String, [UInt8])] = [
            ("a key frame, short descriptor", [0x10] + keyframe),
            ("a delta frame, 15-bit picture ID", [0x90, 0x80, 0x92, 0x34, 0x01, 0x02, 0x03]),
            ("a delta frame of one byte, extensions L, T, K", [0x90, 0x70, 0x05, 0xA3, 0x01]),
        ]
        for (what, payload) in payloads {
            let buffer: [UInt8] = [0xEE, 0xEE, 0xEE] + payload + [0xEE]
            let slice = buffer[3..<(3 + payload.count)]
            guard let frame = VP8Payload.wholeFrame(in: slice), let copied = VP8Payload.frame(from: [payload[...]]) else {
                Issue.record("\(what): not read as a whole frame")
                continue
            }
            #expect(Array(buffer[frame.frameStart..<slice.endIndex]) == copied.bytes, "\(what)")
            #expect(frame.isKeyframe == copied.isKeyframe, "\(what)")
        }
        let refused: [(String, [UInt8])] = [
            ("a continuation (S unset)", [0x00, 0x01, 0x02]),
            ("a key frame without its start code", [0x10, 0x00, 0x00, 0x00, 0x9D, 0x01, 0x2B, 0, 0, 0, 0]),
            ("a descriptor and nothing after it", [0x10]),
        ]
        for (what, payload) in refused {
            let buffer: [UInt8] = [0xEE] + payload
            #expect(VP8Payload.wholeFrame(in: buffer[1...]) == nil, "\(what)")
        }
    }

    @Test func opusIsOneFramePerPayloadUnchanged() throws {
        #expect(try OpusPayload.payloads(for: [0xFC, 0x01, 0x02], maximumPayloadSize: 1200) == [[0xFC, 0x01, 0x02]])
        #expect(throws: RTPPacketizationError.emptyFrame) { try OpusPayload.payloads(for: [], maximumPayloadSize: 1200) }
        #expect(throws: RTPPacketizationError.payloadBudgetTooSmall(2)) { try OpusPayload.payloads(for: [1, 2, 3], maximumPayloadSize: 2) }
        #expect(OpusPayload.frame(from: [[0xFC, 0x01][...]]) == CodecFrame(bytes: [0xFC, 0x01], isKeyframe: true))
        #expect(OpusPayload.frame(from: [[][...]]) == nil)
    }

    @Test func theSequencerNumbersPacketsAcrossTheWrapAndMarksTheLast() {
        var sequencer = RTPPacketSequencer(ssrc: 7, payloadType: 0xE0, firstSequenceNumber: 65_534)
        let packets = sequencer.packets(payloads: [[1], [2], [3]], timestamp: 90_000, markerOnLast: true)
        #expect(packets.map(\.sequenceNumber) == [65_534, 65_535, 0])
        #expect(packets.map(\.marker) == [false, false, true])
        #expect(packets.allSatisfy { $0.timestamp == 90_000 && $0.ssrc == 7 && $0.payloadType == 0x60 })
        #expect(sequencer.nextSequenceNumber == 1)
        #expect(sequencer.packets(payloads: [[4]], timestamp: 1, markerOnLast: false).map(\.marker) == [false])
    }
}
