/// Why a datagram is not an acceptable STUN message. Every parser failure is one of these.
public enum STUNDecodingError: Error, Hashable, Sendable {
    /// Shorter than the 20-byte header.
    case tooShort
    /// The top two bits are set or the magic cookie is wrong.
    case notSTUN
    /// The header's length is not a multiple of four or disagrees with the datagram.
    case lengthMismatch
    /// An attribute runs past the end of the message.
    case truncatedAttribute
    /// An attribute ICE understands has a value of the wrong size or an invalid encoding.
    case malformedAttribute(type: UInt16)
    /// Something other than nothing follows FINGERPRINT.
    case attributeAfterFingerprint
}
