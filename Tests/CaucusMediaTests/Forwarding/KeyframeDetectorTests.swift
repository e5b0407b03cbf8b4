@testable import CaucusMedia
@testable import CaucusSFU
import Testing

/// Keyframe starts read from VP8 (RFC 7741) and H.264 (RFC 6184) payloads.
@Suite struct KeyframeDetectorTests {
    static func packet(_ payload: [UInt8], extensionWords: Int = 0, padding: UInt8 = 0) -> [UInt8] {
        let extensionBlock: RTPHeaderExtension? = extensionWords > 0
            ? .oneByte([RTPHeaderExtensionElement(id: 1, data: Array(repeating: 7, count: extensionWords * 4 - 1))]) : nil
        return RTPPacket(payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3, csrcs: [9], headerExtension: extensionBlock,
                         payload: payload, paddingLength: padding).encoded()
    }

    @Test func vp8KeyframesAreTheStartOfPartitionZeroWithPClear() {
        let keyframeHeader: UInt8 = 0x10  // P clear: a key frame (and show_frame, version bits beside)
        let interHeader: UInt8 = 0x11
        let cases: [([UInt8], Bool, String)] = [
            ([0x10, keyframeHeader, 0x01, 0x2A], true, "S, PID 0, no extensions"),
            ([0x10, interHeader], false, "an inter frame"),
            ([0x00, keyframeHeader], false, "not the start of a partition"),
            ([0x11, keyframeHeader], false, "partition 1"),
            ([0x90, 0x80, 0x05, keyframeHeader], true, "X, I with a 7-bit picture ID"),
            ([0x90, 0x80, 0x85, 0x01, keyframeHeader], true, "X, I with a 15-bit picture ID"),
            ([0x90, 0xE0, 0x85, 0x01, 0x07, 0x40, keyframeHeader], true, "picture ID, TL0PICIDX, TID"),
            ([0x90, 0xE0, 0x85, 0x01, 0x07, 0x40, interHeader], false, "the same, an inter frame"),
            ([0x90, 0xE0, 0x85], false, "cut short"),
            ([], false, "empty"),
        ]
        for (payload, expected, what) in cases {
            #expect(KeyframeDetector.startsKeyframe(Self.packet(payload), codec: .vp8) == expected, "\(what)")
        }
        #expect(KeyframeDetector.startsKeyframe(Self.packet([0x10, keyframeHeader], extensionWords: 2, padding: 4), codec: .vp8),
                "past CSRCs, an extension and padding")
    }

    @Test func h264KeyframesAreIDRsOrTheirParameterSets() {
        let cases: [([UInt8], Bool, String)] = [
            ([0x65, 0x88], true, "an IDR slice alone"),
            ([0x67, 0x42], true, "an SPS alone"),
            ([0x41, 0x9A], false, "a non-IDR slice"),
            ([0x78, 0x00, 0x02, 0x67, 0x42, 0x00, 0x02, 0x68, 0xCE], true, "STAP-A carrying SPS and PPS"),
            ([0x78, 0x00, 0x02, 0x06, 0x05, 0x00, 0x02, 0x41, 0x9A], false, "STAP-A of SEI and a non-IDR slice"),
            ([0x7C, 0x85, 0x88], true, "FU-A start of an IDR"),
            ([0x7C, 0x05, 0x88], false, "FU-A middle of an IDR"),
            ([0x7C, 0x81, 0x9A], false, "FU-A start of a non-IDR slice"),
            ([0x7C], false, "FU-A cut short"),
        ]
        for (payload, expected, what) in cases {
            #expect(KeyframeDetector.startsKeyframe(Self.packet(payload), codec: .h264) == expected, "\(what)")
        }
    }

    @Test func garbageIsNeverAKeyframeAndNeverTraps() {
        var random = SplitMix(seed: 7)
        for _ in 0..<20_000 {
            let bytes = (0..<Int(random.next() % 40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            _ = KeyframeDetector.startsKeyframe(bytes, codec: .vp8)
            _ = KeyframeDetector.startsKeyframe(bytes, codec: .h264)
        }
        #expect(!KeyframeDetector.startsKeyframe([0x80, 96], codec: .vp8))
        #expect(KeyframeDetector.Codec(name: "H264") == .h264 && KeyframeDetector.Codec(name: "opus") == nil)
    }
}
