extension FrameAssembler {
    /// The payload formats a ``FrameAssembler`` reads.
    public enum Codec: Sendable, Hashable {
        /// RFC 7587: each packet is a frame; the marker bit is not a frame boundary.
        case opus
        /// RFC 7741: a frame starts at partition 0's start (S set, PID 0) and ends at the marker.
        case vp8
        /// RFC 6184, packetization mode 1: an access unit ends at the marker; where it starts
        /// shows only in the packet before (the marker, or another timestamp).
        case h264

        /// Whether `packet` is the last of its frame.
        func endsFrame(_ packet: BufferedPacket) -> Bool {
            self == .opus || packet.marker
        }

        /// Whether the payload alone says it is the first of a frame.
        func payloadStartsFrame(_ payload: [UInt8]) -> Bool {
            switch self {
            case .opus: return true
            case .vp8: return VP8PayloadDescriptor.parse(payload[...])?.descriptor.startsFrame == true
            case .h264: return false
            }
        }

        /// The frame that these payloads carry, or nil when they do not make one.
        func frame(from payloads: [ArraySlice<UInt8>]) -> CodecFrame? {
            switch self {
            case .opus: return OpusPayload.frame(from: payloads)
            case .vp8: return VP8Payload.frame(from: payloads)
            case .h264: return H264Payload.frame(from: payloads)
            }
        }
    }

    /// What the assembler keeps of a packet while its frame is incomplete.
    struct BufferedPacket: Hashable, Sendable {
        var timestamp: UInt32
        var marker: Bool
        var payload: [UInt8]
    }
}
