import Testing

@testable import CaucusRecording

/// The EBML encoding (RFC 8794) against values worked out by hand from the RFC.
@Suite struct EBMLElementTests {
    @Test func sizesTakeTheShortestVariableLengthIntegerThatIsNotAllOnes() {
        #expect(EBMLElement.size(0) == [0x80])
        #expect(EBMLElement.size(126) == [0xFE])
        // 127 in one byte would be 0xFF, which means "unknown size".
        #expect(EBMLElement.size(127) == [0x40, 0x7F])
        #expect(EBMLElement.size(16_382) == [0x7F, 0xFE])
        #expect(EBMLElement.size(16_383) == [0x20, 0x3F, 0xFF])
        // Six bytes hold 42 bits: the marker is bit 42 (0x04 in the first byte), the value bit 40 (0x01).
        #expect(EBMLElement.size(1 << 40) == [0x05, 0x00, 0x00, 0x00, 0x00, 0x00])
        #expect(EBMLElement.unknownSize == [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
    }

    @Test func idsKeepTheirLengthMarker() {
        #expect(EBMLElement.id(0x1A45_DFA3) == [0x1A, 0x45, 0xDF, 0xA3])
        #expect(EBMLElement.id(0x2A_D7B1) == [0x2A, 0xD7, 0xB1])
        #expect(EBMLElement.id(0x4286) == [0x42, 0x86])
        #expect(EBMLElement.id(0xA3) == [0xA3])
    }

    @Test func valuesAreBigEndianInTheirTypesWidth() {
        #expect(EBMLElement.unsigned(0xD7, 0) == [0xD7, 0x81, 0x00])
        #expect(EBMLElement.unsigned(0x2A_D7B1, 1_000_000) == [0x2A, 0xD7, 0xB1, 0x83, 0x0F, 0x42, 0x40])
        #expect(EBMLElement.string(0x4282, "webm") == [0x42, 0x82, 0x84, 0x77, 0x65, 0x62, 0x6D])
        #expect(EBMLElement.float(0xB5, 48_000) == [0xB5, 0x88, 0x40, 0xE7, 0x70, 0x00, 0x00, 0x00, 0x00, 0x00])
        #expect(EBMLElement.signed(0xFB, -2) == [0xFB, 0x88, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE])
        #expect(EBMLElement.openMaster(0x1F43_B675) == [0x1F, 0x43, 0xB6, 0x75] + EBMLElement.unknownSize)
    }

    /// RFC 7845 §5.1, byte by byte.
    @Test func opusHeadIsTheIdentificationHeader() {
        let head = WebMTrack.opusHead(channels: 2, preSkip: 312)
        #expect(head == Array("OpusHead".utf8) + [1, 2, 0x38, 0x01, 0x80, 0xBB, 0x00, 0x00, 0x00, 0x00, 0x00])
        #expect(head.count == 19)
    }

    @Test func vp8KeyframeSizeIsReadFromTheFrameHeader() {
        let frame: [UInt8] = [0x50, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x80, 0x42, 0xE0, 0x01, 0x00]
        let size = VP8KeyframeSize.of(frame[...])
        // 0x4280 with the scale bits (top two) dropped: 640; 0x01E0: 480.
        #expect(size?.width == 640 && size?.height == 480)
        var interframe = frame
        interframe[0] |= 0x01
        #expect(VP8KeyframeSize.of(interframe[...]) == nil)
        var noStartCode = frame
        noStartCode[4] = 0x00
        #expect(VP8KeyframeSize.of(noStartCode[...]) == nil)
        #expect(VP8KeyframeSize.of(frame.prefix(9)) == nil)
        #expect(VP8KeyframeSize.of(([0xFF] + frame).dropFirst())?.width == 640, "a slice is read from its own start")
    }
}
