/// What a ``FrameAssembler`` hands on: a whole frame, or the sequence numbers of packets it
/// gave up on, so that the receiver can ask for a keyframe.
public enum FrameAssemblyEvent: Hashable, Sendable {
    case frame(AssembledFrame)
    case lost(FrameLoss)
}

/// One frame, every packet of it present and its payloads well formed.
public struct AssembledFrame: Hashable, Sendable {
    /// The RTP timestamp its packets share.
    public var timestamp: UInt32
    /// Decodable without earlier frames: a VP8 key frame, an H.264 access unit with an IDR
    /// slice; always true for Opus, which has no inter-frame dependency a receiver waits for.
    public var isKeyframe: Bool
    /// What a decoder takes: the Opus packet, the VP8 frame, the H.264 access unit as an
    /// Annex B stream (a four-byte start code before each NAL unit).
    public var bytes: [UInt8]
    /// The sequence number of its first packet.
    public var firstSequenceNumber: UInt16
    public var packetCount: Int
}

/// Sequence numbers the assembler resolved without delivering them: packets that never came
/// (or came too late), and any packets around them that could not make a whole frame. Every
/// frame with a packet in this range is lost; a video receiver asks for a keyframe.
public struct FrameLoss: Hashable, Sendable {
    public var firstSequenceNumber: UInt16
    /// How many sequence numbers, from the first (wrapping at 2^16).
    public var count: Int
    /// The timestamps of the packets in the range that did arrive, in sequence order, each once:
    /// the frames known to be lost (a frame none of whose packets came has no timestamp here).
    public var timestamps: [UInt32]

    /// Whether `sequenceNumber` lies in the range.
    public func contains(_ sequenceNumber: UInt16) -> Bool {
        Int(sequenceNumber &- firstSequenceNumber) < count
    }
}
