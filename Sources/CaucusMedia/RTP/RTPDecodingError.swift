/// Why bytes are not an acceptable RTP or RTCP packet. Every parser failure is one of these.
public enum RTPDecodingError: Error, Hashable, Sendable {
    /// Shorter than the fixed header, or than the CSRCs and extension it announces.
    case truncated
    /// The version bits are not 2.
    case wrongVersion
    /// The padding bit is set but the count is zero or larger than the packet.
    case invalidPadding
    /// A header extension element runs past its block or has a reserved ID.
    case invalidHeaderExtension
    /// An RTCP length field disagrees with the datagram.
    case invalidLength
    /// An RTCP packet's body is too short for what its header announces.
    case malformedRTCP(packetType: UInt8)
}
