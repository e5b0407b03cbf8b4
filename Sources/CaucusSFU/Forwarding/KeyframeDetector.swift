import CaucusMedia

/// Whether an RTP packet starts a keyframe, read from its payload without decoding: the first
/// packet of a picture a decoder can start from. Video slots switch source only there, so a
/// subscriber never sees a picture predicted from one it never had.
public enum KeyframeDetector {
    /// The codecs whose payloads it reads; any other video codec is never a keyframe start.
    public enum Codec: Sendable, Hashable {
        case vp8
        case h264

        public init?(name: String) {
            switch name.lowercased() {
            case "vp8": self = .vp8
            case "h264": self = .h264
            default: return nil
            }
        }
    }

    /// `packet` is a whole RTP packet (header, CSRCs, extension, payload, padding).
    public static func startsKeyframe(_ packet: [UInt8], codec: Codec) -> Bool {
        guard let payload = payloadRange(of: packet) else { return false }
        switch codec {
        case .vp8: return vp8StartsKeyframe(packet[payload])
        case .h264: return h264StartsKeyframe(packet[payload])
        }
    }

    /// Where the payload lies, past the fixed header, CSRCs and extension, before padding.
    static func payloadRange(of packet: [UInt8]) -> Range<Int>? {
        guard packet.count >= 12, packet[0] >> 6 == 2 else { return nil }
        var start = 12 + Int(packet[0] & 0x0F) * 4
        if packet[0] & 0x10 != 0 {
            guard start + 4 <= packet.count else { return nil }
            start += 4 + (Int(packet[start + 2]) << 8 | Int(packet[start + 3])) * 4
        }
        var end = packet.count
        if packet[0] & 0x20 != 0 { end -= Int(packet[packet.count - 1]) }
        guard start < end else { return nil }
        return start..<end
    }

    /// RFC 7741 §4.2–4.3: the start of partition 0 (S set, PID 0) of a frame whose VP8
    /// header has P clear (RFC 6386 §9.1: the inverse key-frame flag).
    static func vp8StartsKeyframe(_ payload: ArraySlice<UInt8>) -> Bool {
        var index = payload.startIndex
        guard index < payload.endIndex else { return false }
        let descriptor = payload[index]
        guard descriptor & 0x10 != 0, descriptor & 0x07 == 0 else { return false }
        index += 1
        if descriptor & 0x80 != 0 {
            guard index < payload.endIndex else { return false }
            let extensions = payload[index]
            index += 1
            if extensions & 0x80 != 0 {
                guard index < payload.endIndex else { return false }
                index += payload[index] & 0x80 != 0 ? 2 : 1
            }
            if extensions & 0x40 != 0 { index += 1 }
            if extensions & 0x30 != 0 { index += 1 }
        }
        guard index < payload.endIndex else { return false }
        return payload[index] & 0x01 == 0
    }

    /// RFC 6184 §5: a NAL unit that opens an IDR picture or its parameter sets (IDR slice 5,
    /// SPS 7), alone, inside a STAP-A (24), or as the start of an FU-A (28).
    static func h264StartsKeyframe(_ payload: ArraySlice<UInt8>) -> Bool {
        guard let header = payload.first else { return false }
        switch header & 0x1F {
        case 5, 7:
            return true
        case 24:
            var index = payload.startIndex + 1
            while index + 2 < payload.endIndex {
                let size = Int(payload[index]) << 8 | Int(payload[index + 1])
                let type = payload[index + 2] & 0x1F
                if type == 5 || type == 7 { return true }
                index += 2 + size
            }
            return false
        case 28:
            guard payload.count >= 2 else { return false }
            let fragment = payload[payload.startIndex + 1]
            return fragment & 0x80 != 0 && (fragment & 0x1F == 5 || fragment & 0x1F == 7)
        default:
            return false
        }
    }
}
