/// One frame as a codec's depacketiser reads it back: the bytes a decoder takes and whether
/// it decodes without earlier frames.
struct CodecFrame: Hashable, Sendable {
    var bytes: [UInt8]
    var isKeyframe: Bool
}
