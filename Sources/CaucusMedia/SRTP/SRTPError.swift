/// Why a packet could not be protected or unprotected. Every malformed, forged or replayed
/// packet ends here, never in a trap: the caller drops and counts it.
public enum SRTPError: Error, Sendable, Hashable {
    /// A master key or salt of the wrong length for the profile.
    case invalidKeyingMaterial
    /// The caller's buffer has no room for the tag (and SRTCP index) protecting appends.
    case bufferTooSmall
    /// Shorter than a header plus the tag (and the SRTCP index) it must carry.
    case packetTooShort
    /// Not version 2, or CSRC/extension lengths that run past the end.
    case malformedHeader
    /// The tag does not match: forged, corrupted, or keyed for another session.
    case authenticationFailed
    /// This index was already accepted.
    case replayed
    /// Older than the replay window remembers, so it cannot be told apart from a replay.
    case tooOld
    /// The SRTCP index space (2^31 packets) is used up; the session must be re-keyed.
    case indexExhausted
    /// BoringSSL refused an operation that valid input never makes it refuse.
    case cipherFailure
}
