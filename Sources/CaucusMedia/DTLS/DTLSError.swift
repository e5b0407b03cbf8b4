/// Why a DTLS endpoint could not be created or its handshake failed.
public enum DTLSError: Error, Sendable, Hashable {
    /// BoringSSL refused to create a key, certificate or context (`reason` is its error queue).
    case setupFailed(reason: String)
    /// The peer's certificate does not have the fingerprint its SDP announced.
    case fingerprintMismatch(announced: DTLSFingerprint, presented: DTLSFingerprint)
    /// The peer presented no certificate.
    case noPeerCertificate
    /// The handshake completed without an SRTP profile both sides support.
    case noSRTPProfile
    /// The handshake failed: a bad message, an alert from the peer, no common cipher…
    case handshakeFailed(reason: String)
    /// The peer closed the association (close_notify) or sent a fatal alert afterwards.
    case closed(reason: String)
}
