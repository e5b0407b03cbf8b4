/// Why a frame cannot be cut into RTP payloads. Packetisers throw only these.
public enum RTPPacketizationError: Error, Hashable, Sendable {
    /// The frame (or, for H.264, one of its NAL units) has no bytes.
    case emptyFrame
    /// The payload budget cannot hold the codec's headers and at least one byte of media.
    case payloadBudgetTooSmall(Int)
    /// An H.264 NAL unit of a type packetization mode 1 does not carry (STAP-B 25, MTAP 26–27,
    /// FU-B 29, or the reserved 0, 30 and 31): the input is not an encoder's output.
    case unsupportedNALUnitType(UInt8)
}
