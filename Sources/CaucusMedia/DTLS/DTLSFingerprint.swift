/// A certificate's SHA-256 fingerprint, as SDP carries it (`a=fingerprint:sha-256 AB:CD:…`,
/// RFC 8122 §5): the only thing that binds a self-signed DTLS certificate to the signalling.
public struct DTLSFingerprint: Sendable, Hashable {
    /// The 32 bytes of the SHA-256 digest of the certificate's DER encoding.
    public let bytes: [UInt8]

    public init?(sha256 bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self.bytes = bytes
    }

    /// Parses `sha-256 AB:CD:…` (the hash name is case-insensitive, RFC 8122 §5). Other hash
    /// functions are refused: WebRTC endpoints all offer SHA-256.
    public init?(sdpValue: String) {
        let parts = sdpValue.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "sha-256" else { return nil }
        var bytes: [UInt8] = []
        for pair in parts[1].split(separator: ":", omittingEmptySubsequences: false) {
            guard pair.count == 2, let byte = UInt8(pair, radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.init(sha256: bytes)
    }

    /// The upper-case, colon-separated digits, without the hash name.
    public var hexDigits: String {
        bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return byte < 16 ? "0" + digits : digits
        }.joined(separator: ":")
    }

    /// The `a=fingerprint:` attribute's value.
    public var sdpValue: String { "sha-256 " + hexDigits }
}

extension DTLSFingerprint: CustomStringConvertible {
    public var description: String { sdpValue }
}
