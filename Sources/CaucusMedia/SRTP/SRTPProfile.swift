/// The two SRTP protection profiles WebRTC negotiates in DTLS `use_srtp` (RFC 5764, RFC 7714).
public enum SRTPProfile: Sendable, Hashable, CaseIterable {
    /// AEAD_AES_128_GCM (RFC 7714): preferred, one AES-GCM pass and a 16-byte tag.
    case aeadAES128GCM
    /// AES_CM_128_HMAC_SHA1_80 (RFC 3711): AES counter mode and an 80-bit HMAC-SHA1 tag.
    case aesCM128HMACSHA1_80

    /// Master and session key length in bytes (both profiles use AES-128).
    public var keyLength: Int { 16 }

    /// Master and session salt length in bytes: 96 bits for GCM (RFC 7714 §12), 112 for CM.
    public var saltLength: Int {
        switch self {
        case .aeadAES128GCM: 12
        case .aesCM128HMACSHA1_80: 14
        }
    }

    /// Bytes the protected packet gains: the GCM tag, or the truncated HMAC.
    public var tagLength: Int {
        switch self {
        case .aeadAES128GCM: 16
        case .aesCM128HMACSHA1_80: 10
        }
    }

    /// The profile's name in DTLS `use_srtp` negotiation and OpenSSL's command line.
    public var dtlsName: String {
        switch self {
        case .aeadAES128GCM: "SRTP_AEAD_AES_128_GCM"
        case .aesCM128HMACSHA1_80: "SRTP_AES128_CM_SHA1_80"
        }
    }

    /// The IANA protection profile identifier (RFC 5764 §4.1.2, RFC 7714 §14.2).
    public var dtlsIdentifier: UInt16 {
        switch self {
        case .aeadAES128GCM: 0x0007
        case .aesCM128HMACSHA1_80: 0x0001
        }
    }
}
