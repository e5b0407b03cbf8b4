/// VP8 over RTP (RFC 7741): a frame split into payloads that each start with a
/// ``VP8PayloadDescriptor``, and the frame read back from them.
///
/// The packetiser does not parse the frame into partitions: the first payload starts
/// partition 0 (S set, PID 0) and the others continue it (S clear, PID 0), which RFC 7741
/// §4.4 allows and decoders accept. The frame is cut into equal parts (within one byte), as
/// few as the budget allows, so no packet is a tiny tail.
public enum VP8Payload {
    /// The payloads for one frame. `descriptor` gives the fields every payload of the frame
    /// carries (N, PictureID, TL0PICIDX, TID/Y, KEYIDX); S and PID are set here.
    /// `maximumPayloadSize` counts the descriptor.
    public static func payloads(
        for frame: [UInt8], descriptor: VP8PayloadDescriptor, maximumPayloadSize: Int
    ) throws(RTPPacketizationError) -> [[UInt8]] {
        guard !frame.isEmpty else { throw .emptyFrame }
        var first = descriptor
        first.startsPartition = true
        first.partitionIndex = 0
        var rest = descriptor
        rest.startsPartition = false
        rest.partitionIndex = 0
        let (firstHeader, restHeader) = (first.encoded(), rest.encoded())
        let budget = maximumPayloadSize - firstHeader.count
        guard budget >= 1 else { throw .payloadBudgetTooSmall(maximumPayloadSize) }
        return EvenSplit.ranges(of: frame.count, budget: budget).enumerated().map { index, range in
            (index == 0 ? firstHeader : restHeader) + frame[range]
        }
    }

    /// Whether a VP8 frame is a key frame: the P bit of its frame tag is clear (RFC 6386 §9.1).
    public static func isKeyframe(_ frame: some Collection<UInt8>) -> Bool {
        frame.first.map { $0 & 0x01 == 0 } ?? false
    }

    /// The frame the payloads of one picture carry, or nil when they do not form one: the
    /// first must start partition 0 and no other may; partition indices never go back; the
    /// PictureID is the same in all; no payload is empty past its descriptor; a key frame
    /// holds at least its 10-byte header with the start code (RFC 6386 §9.1).
    static func frame(from payloads: [ArraySlice<UInt8>]) -> CodecFrame? {
        var bytes: [UInt8] = []
        var first: VP8PayloadDescriptor?
        var partition: UInt8 = 0
        for payload in payloads {
            guard let (descriptor, length) = VP8PayloadDescriptor.parse(payload), length < payload.count else { return nil }
            if let first {
                guard !descriptor.startsFrame, descriptor.partitionIndex >= partition, descriptor.pictureID == first.pictureID
                else { return nil }
            } else {
                guard descriptor.startsFrame else { return nil }
                first = descriptor
            }
            partition = descriptor.partitionIndex
            bytes += payload.dropFirst(length)
        }
        guard !bytes.isEmpty else { return nil }
        let isKeyframe = isKeyframe(bytes)
        guard !isKeyframe || hasKeyframeHeader(bytes[...]) else { return nil }
        return CodecFrame(bytes: bytes, isKeyframe: isKeyframe)
    }

    /// The frame one payload carries alone (a picture in one packet), read in place: what
    /// ``frame(from:)`` makes of `[payload]` is `payload[frameStart...]`, found without copying
    /// it. Nil when it is not one.
    ///
    /// It answers with an index, not the slice: the recorder's per-packet path took about 5 %
    /// of the recording writer's time destroying the optional tuple that held the slice, which
    /// Swift does through the tuple's runtime metadata (docs/benchmarks.md).
    public static func wholeFrame(in payload: ArraySlice<UInt8>) -> (frameStart: Int, isKeyframe: Bool)? {
        guard let (descriptor, length) = VP8PayloadDescriptor.parse(payload), length < payload.count, descriptor.startsFrame
        else { return nil }
        let frameStart = payload.startIndex + length
        let bytes = payload[frameStart...]
        let isKeyframe = isKeyframe(bytes)
        guard !isKeyframe || hasKeyframeHeader(bytes) else { return nil }
        return (frameStart, isKeyframe)
    }

    /// A key frame holds at least its 10-byte header with the start code (RFC 6386 §9.1).
    private static func hasKeyframeHeader(_ bytes: ArraySlice<UInt8>) -> Bool {
        let at = bytes.startIndex
        return bytes.count >= 10 && bytes[at + 3] == 0x9D && bytes[at + 4] == 0x01 && bytes[at + 5] == 0x2A
    }
}
