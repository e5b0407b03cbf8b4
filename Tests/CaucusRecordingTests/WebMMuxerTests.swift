import Testing

@testable import CaucusRecording

/// The muxer's bytes: the header's layout, where clusters start, SimpleBlocks, and refusals.
@Suite struct WebMMuxerTests {
    static let audio = WebMTrack(number: 1, uid: 11, codec: .opus())
    static let video = WebMTrack(number: 2, uid: 22, codec: .vp8(width: 320, height: 240), name: "Ann")

    @Test func theHeaderIsAnEBMLDocumentThenASegmentOfUnknownSize() throws {
        let muxer = try WebMMuxer(tracks: [Self.audio, Self.video])
        let header = muxer.header()
        let bytes = header.bytes
        #expect(Array(bytes.prefix(4)) == [0x1A, 0x45, 0xDF, 0xA3])
        #expect(bytes.firstRange(of: EBMLElement.string(0x4282, "webm")) != nil, "DocType webm")
        let segment = try #require(bytes.firstRange(of: [0x18, 0x53, 0x80, 0x67]))
        #expect(Array(bytes[segment.upperBound..<segment.upperBound + 8]) == EBMLElement.unknownSize)
        #expect(bytes.firstRange(of: EBMLElement.unsigned(0x2A_D7B1, 1_000_000)) != nil, "TimestampScale 1 ms")
        #expect(bytes.firstRange(of: EBMLElement.string(0x4D80, "Caucus")) != nil)
        #expect(bytes.firstRange(of: EBMLElement.string(0x5741, "Caucus")) != nil)
        #expect(bytes.firstRange(of: EBMLElement.string(0x86, "A_OPUS")) != nil)
        #expect(bytes.firstRange(of: EBMLElement.string(0x86, "V_VP8")) != nil)
        #expect(bytes.firstRange(of: EBMLElement.element(0x63A2, WebMTrack.opusHead(channels: 2, preSkip: 0))) != nil)
        #expect(bytes.firstRange(of: EBMLElement.unsigned(0xB0, 320) + EBMLElement.unsigned(0xBA, 240)) != nil)
        // The duration's eight bytes, right after its ID and size.
        #expect(Array(bytes[header.durationOffset - 3..<header.durationOffset]) == [0x44, 0x89, 0x88])
        #expect(Array(bytes[header.durationOffset..<header.durationOffset + 8]) == [0, 0, 0, 0, 0, 0, 0, 0])
        #expect(try WebMMuxer(tracks: [Self.audio], docType: .matroska).header().bytes.firstRange(of: Array("matroska".utf8)) != nil)
    }

    @Test func aSimpleBlockCarriesTrackRelativeTimeAndKeyframeFlag() throws {
        var muxer = try WebMMuxer(tracks: [Self.audio, Self.video])
        let first = try muxer.append(track: 1, timestamp: 700, keyframe: true, frame: [0xAA, 0xBB])
        #expect(first.startsCluster)
        let cluster = [0x1F, 0x43, 0xB6, 0x75] + EBMLElement.unknownSize + [0xE7, 0x82, 0x02, 0xBC]
        #expect(first.bytes == cluster + [0xA3, 0x86, 0x81, 0x00, 0x00, 0x80, 0xAA, 0xBB])
        let second = try muxer.append(track: 2, timestamp: 720, keyframe: false, frame: [0xCC])
        #expect(!second.startsCluster && second.durationBefore == 700)
        #expect(second.bytes == [0xA3, 0x85, 0x82, 0x00, 0x14, 0x00, 0xCC])
    }

    @Test func clustersStartAtVideoKeyframesAndAfterTheirSpan() throws {
        var muxer = try WebMMuxer(tracks: [Self.audio, Self.video])
        var starts: [Int64] = []
        for time in stride(from: Int64(0), through: 2_500, by: 20) {
            if try muxer.append(track: 1, timestamp: time, keyframe: true, frame: [1]).startsCluster { starts.append(time) }
            if time == 1_300 {
                if try muxer.append(track: 2, timestamp: time, keyframe: true, frame: [2]).startsCluster { starts.append(time) }
            }
            if time == 1_400 {
                if try muxer.append(track: 2, timestamp: time, keyframe: false, frame: [3]).startsCluster { starts.append(time) }
            }
        }
        // Audio keyframes never cut a cluster; a video keyframe does; otherwise every 1,000 ms.
        #expect(starts == [0, 1_000, 1_300, 2_300])
    }

    @Test func aGapLongerThanTheSpanStartsACluster() throws {
        var muxer = try WebMMuxer(tracks: [Self.audio], clusterSpan: 30_000)
        #expect(try muxer.append(track: 1, timestamp: 0, keyframe: true, frame: [1]).startsCluster)
        #expect(try !muxer.append(track: 1, timestamp: 29_999, keyframe: true, frame: [1]).startsCluster)
        let late = try muxer.append(track: 1, timestamp: 600_000, keyframe: true, frame: [1])
        #expect(late.startsCluster && late.durationBefore == 29_999)
    }

    /// An H.264 track of 320×240 (SPS and PPS as x264 writes them for baseline).
    static let h264 = WebMTrack(
        number: 1, uid: 33,
        codec: .h264(AVCDecoderConfiguration(
            sequenceParameterSets: [[
                0x67, 0x42, 0xC0, 0x0B, 0xD9, 0x01, 0x41, 0xFB, 0x01, 0x10, 0x00, 0x00, 0x03, 0x00, 0x10, 0x00, 0x00, 0x03, 0x01, 0x40,
                0xF1, 0x42, 0xA4, 0x80,
            ]],
            pictureParameterSets: [[0x68, 0xCB, 0x83, 0xCB, 0x20]])!))

    @Test func anH264TrackIsMatroskaWithItsDecoderConfiguration() throws {
        guard case .h264(let configuration) = Self.h264.codec else { Issue.record("not H.264"); return }
        #expect(configuration.parameters.width == 320 && configuration.parameters.height == 240, "\(configuration.parameters)")
        let bytes = try WebMMuxer(tracks: [Self.h264], docType: .matroska).header().bytes
        #expect(bytes.firstRange(of: EBMLElement.string(0x4282, "matroska")) != nil, "DocType matroska")
        #expect(bytes.firstRange(of: EBMLElement.string(0x86, "V_MPEG4/ISO/AVC")) != nil)
        #expect(bytes.firstRange(of: EBMLElement.element(0x63A2, configuration.bytes)) != nil, "CodecPrivate")
        #expect(bytes.firstRange(of: EBMLElement.unsigned(0xB0, 320) + EBMLElement.unsigned(0xBA, 240)) != nil)
        #expect(Self.h264.codec.docType == .matroska && Self.video.codec.docType == .webm && Self.audio.codec.docType == .webm)
    }

    @Test func badInputIsRefusedAndChangesNothing() throws {
        #expect(throws: WebMMuxerError.noTracks) { try WebMMuxer(tracks: []) }
        #expect(throws: WebMMuxerError.trackNumberOutOfRange(127)) { try WebMMuxer(tracks: [WebMTrack(number: 127, uid: 1, codec: .opus())]) }
        #expect(throws: WebMMuxerError.zeroTrackUID) { try WebMMuxer(tracks: [WebMTrack(number: 1, uid: 0, codec: .opus())]) }
        #expect(throws: WebMMuxerError.duplicateTrackNumber) {
            try WebMMuxer(tracks: [Self.audio, WebMTrack(number: 1, uid: 99, codec: .opus())])
        }
        #expect(throws: WebMMuxerError.duplicateTrackUID) {
            try WebMMuxer(tracks: [Self.audio, WebMTrack(number: 2, uid: 11, codec: .opus())])
        }
        #expect(throws: WebMMuxerError.notInWebM("h264")) { try WebMMuxer(tracks: [Self.h264]) }
        var muxer = try WebMMuxer(tracks: [Self.audio])
        _ = try muxer.append(track: 1, timestamp: 500, keyframe: true, frame: [1])
        #expect(throws: WebMMuxerError.timestampWentBack(from: 500, to: 499)) {
            try muxer.append(track: 1, timestamp: 499, keyframe: true, frame: [1])
        }
        #expect(throws: WebMMuxerError.unknownTrack(2)) { try muxer.append(track: 2, timestamp: 600, keyframe: true, frame: [1]) }
        #expect(throws: WebMMuxerError.emptyFrame) { try muxer.append(track: 1, timestamp: 600, keyframe: true, frame: []) }
        #expect(throws: WebMMuxerError.negativeTimestamp(-1)) { try muxer.append(track: 1, timestamp: -1, keyframe: true, frame: [1]) }
        #expect(muxer.lastTimestamp == 500)
        let next = try muxer.append(track: 1, timestamp: 520, keyframe: true, frame: [1])
        #expect(!next.startsCluster && next.bytes == [0xA3, 0x85, 0x81, 0x00, 0x14, 0x80, 0x01])
    }
}
