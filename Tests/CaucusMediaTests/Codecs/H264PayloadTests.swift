@testable import CaucusMedia
import Testing

/// H.264 payloads in packetization mode 1 (RFC 6184 §5.6–5.8) and Annex B streams, checked
/// against hand-built bytes.
@Suite struct H264PayloadTests {
    static let sps: [UInt8] = [0x67, 0x42, 0x00, 0x1F]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
    static let idr: [UInt8] = [0x65] + Array(1...20)
    static let slice: [UInt8] = [0x41, 0x9A, 0x02, 0x03]

    @Test func parameterSetsShareAStapAAndALargeSliceIsCutIntoFuAs() throws {
        let payloads = try H264Payload.payloads(for: [Self.sps, Self.pps, Self.idr], maximumPayloadSize: 16)
        #expect(payloads == [
            // STAP-A: F 0, NRI 3 (the largest), type 24; each unit after its 16-bit size.
            [0x78, 0x00, 0x04] + Self.sps + [0x00, 0x04] + Self.pps,
            // FU-A: indicator F|NRI|28, header S|type 5, then E|type 5; 20 body bytes in halves.
            [0x7C, 0x85] + Array(1...10),
            [0x7C, 0x45] + Array(11...20),
        ])
        #expect(H264Payload.nalUnits(from: payloads.map { $0[...] }) == [Self.sps, Self.pps, Self.idr])
        let frame = H264Payload.frame(from: payloads.map { $0[...] })
        #expect(frame == CodecFrame(bytes: [0, 0, 0, 1] + Self.sps + [0, 0, 0, 1] + Self.pps + [0, 0, 0, 1] + Self.idr, isKeyframe: true))
    }

    @Test func aUnitThatFitsAloneIsASingleNALUnitPacket() throws {
        #expect(try H264Payload.payloads(for: [Self.slice], maximumPayloadSize: 16) == [Self.slice])
        #expect(try H264Payload.payloads(for: [Self.slice, Self.idr], maximumPayloadSize: 21) == [Self.slice, Self.idr])
        #expect(H264Payload.frame(from: [Self.slice[...]])?.isKeyframe == false)
    }

    @Test func theNRIOfAStapAIsItsLargestAndFIsTheirOr() throws {
        let payloads = try H264Payload.payloads(for: [[0x06, 0x05], [0xA1, 0x07]], maximumPayloadSize: 100)
        #expect(payloads == [[0x80 | 0x20 | 24, 0x00, 0x02, 0x06, 0x05, 0x00, 0x02, 0xA1, 0x07]])
    }

    @Test func packetisingRefusesWhatModeOneCannotCarry() {
        #expect(throws: RTPPacketizationError.emptyFrame) { try H264Payload.payloads(for: [], maximumPayloadSize: 100) }
        #expect(throws: RTPPacketizationError.emptyFrame) { try H264Payload.payloads(for: [Self.sps, []], maximumPayloadSize: 100) }
        #expect(throws: RTPPacketizationError.unsupportedNALUnitType(24)) { try H264Payload.payloads(for: [[0x18, 1]], maximumPayloadSize: 100) }
        #expect(throws: RTPPacketizationError.unsupportedNALUnitType(0)) { try H264Payload.payloads(for: [[0x00, 1]], maximumPayloadSize: 100) }
        #expect(throws: RTPPacketizationError.payloadBudgetTooSmall(2)) { try H264Payload.payloads(for: [Self.sps], maximumPayloadSize: 2) }
    }

    @Test func payloadsThatDoNotMakeWholeNALUnitsAreRefused() {
        let cases: [([[UInt8]], String)] = [
            ([[0x7C, 0x85, 1, 2]], "an FU-A start without its end"),
            ([[0x7C, 0x45, 1, 2]], "an FU-A end without its start"),
            ([[0x7C, 0xC5, 1, 2]], "start and end in one FU-A"),
            ([[0x7C, 0x85, 1], [0x7C, 0x05, 2], [0x7C, 0x85, 3]], "a second start inside a fragmented unit"),
            ([[0x7C, 0x85, 1], [0x7C, 0x41, 2]], "the type changes between fragments"),
            ([[0x7C, 0x85, 1], Self.slice], "another packet inside a fragmented unit"),
            ([[0x7C, 0x85]], "an FU-A without a byte of the unit"),
            ([[0x78, 0x00, 0x05] + Self.sps], "a STAP-A size past its end"),
            ([[0x78, 0x00, 0x00, 0x00, 0x04] + Self.sps], "an empty unit in a STAP-A"),
            ([[0x78, 0x00, 0x04] + Self.sps + [0x00]], "a STAP-A ending inside a size"),
            ([[0x78]], "a STAP-A with nothing in it"),
            ([[0x78, 0x00, 0x02, 0x18, 0x01]], "a STAP-A inside a STAP-A"),
            ([[0x19, 0x00, 0x01]], "STAP-B (mode 2 only)"),
            ([[0x1D, 0x85, 1]], "FU-B (mode 2 only)"),
            ([[0x00, 1]], "reserved type 0"),
            ([[]], "an empty payload"),
            ([], "no payloads"),
        ]
        for (payloads, what) in cases {
            #expect(H264Payload.nalUnits(from: payloads.map { $0[...] }) == nil, "\(what)")
        }
    }

    @Test func annexBStreamsSplitOnBothStartCodesAndDropPadding() {
        let stream: [UInt8] = [0xFF, 0, 0, 0, 1] + Self.sps + [0, 0, 1] + Self.pps + [0, 0, 0, 0, 1] + Self.slice + [0, 0]
        #expect(H264AnnexB.nalUnits(in: stream) == [Self.sps, Self.pps, Self.slice])
        #expect(H264AnnexB.stream(of: [Self.sps, Self.slice]) == [0, 0, 0, 1] + Self.sps + [0, 0, 0, 1] + Self.slice)
        #expect(H264AnnexB.nalUnits(in: H264AnnexB.stream(of: [Self.sps, Self.pps, Self.idr])) == [Self.sps, Self.pps, Self.idr])
        #expect(H264AnnexB.nalUnits(in: [0, 0, 1]) == [])
        #expect(H264AnnexB.nalUnits(in: [1, 2, 3]) == [])
    }
}
