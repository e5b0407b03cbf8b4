/// A session salt (14 bytes for AES-CM, 12 for GCM), held in the value itself rather than in an
/// array: a transform keeps it inline in its context, so the nonce of a forwarded copy reads it
/// from memory the copy has already touched. (An array's storage was a separate object: in
/// profiles of the media loop, the first read of its count was half of `sealRTP`'s own samples,
/// a cache miss on every copy.)
struct SRTPSalt: Sendable {
    static let capacity = 16
    /// The bytes, in order, zero past the salt's end (no profile needs its length again).
    private var bytes: (UInt64, UInt64) = (0, 0)

    /// `bytes` as they are; nil past ``capacity`` (no profile's salt is that long).
    init?(_ salt: [UInt8]) {
        guard salt.count <= Self.capacity else { return nil }
        withUnsafeMutableBytes(of: &bytes) { $0.copyBytes(from: salt) }
    }

    /// Fills `destination`'s first bytes (up to ``capacity``) with the salt, zeros past its end.
    func copy(into destination: UnsafeMutableRawBufferPointer) {
        withUnsafeBytes(of: bytes) { source in
            destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: source.prefix(destination.count)))
        }
    }
}
