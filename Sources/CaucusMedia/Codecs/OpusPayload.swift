/// Opus over RTP (RFC 7587): one Opus packet, the encoder's output for one frame (of 2.5 to
/// 120 ms, possibly several frames in Opus's own framing, RFC 6716 §3), is one RTP payload,
/// unchanged. There is no payload header; the marker bit only flags a talkspurt's first packet.
public enum OpusPayload {
    /// The one payload for `frame`.
    public static func payloads(for frame: [UInt8], maximumPayloadSize: Int) throws(RTPPacketizationError) -> [[UInt8]] {
        guard !frame.isEmpty else { throw .emptyFrame }
        guard frame.count <= maximumPayloadSize else { throw .payloadBudgetTooSmall(maximumPayloadSize) }
        return [frame]
    }

    /// The frame a payload carries: the payload itself, unless empty (RFC 7587 §4.2: a
    /// payload holds exactly one Opus packet, which is at least its TOC byte).
    static func frame(from payloads: [ArraySlice<UInt8>]) -> CodecFrame? {
        guard payloads.count == 1, let payload = payloads.first, !payload.isEmpty else { return nil }
        // Every Opus frame decodes on its own: there are no keyframes to wait for.
        return CodecFrame(bytes: Array(payload), isKeyframe: true)
    }
}
