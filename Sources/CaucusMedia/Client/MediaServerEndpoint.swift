/// What a client needs of the server's answer to connect: its ICE credentials, the address
/// of its one host candidate, and its certificate's fingerprint.
public struct MediaServerEndpoint: Sendable, Hashable {
    public var credentials: ICECredentials
    public var address: TransportAddress
    public var fingerprint: DTLSFingerprint

    public init(credentials: ICECredentials, address: TransportAddress, fingerprint: DTLSFingerprint) {
        self.credentials = credentials
        self.address = address
        self.fingerprint = fingerprint
    }

    /// Reads them from an answer: the first bundled section's ICE credentials, SHA-256
    /// fingerprint and first UDP host candidate.
    public init(answer: SessionDescription) throws(MediaAnswerError) {
        guard let section = answer.media.first(where: { $0.port != 0 }) else { throw .noMediaSection }
        guard let ufrag = section.iceUfrag, let pwd = section.icePwd else { throw .noICECredentials }
        guard
            let fingerprint = section.fingerprints.lazy.compactMap({ DTLSFingerprint(sdpValue: "\($0.algorithm) \($0.value)") }).first
        else { throw .noFingerprint }
        guard let address = section.candidates.lazy.compactMap(Self.hostAddress).first else { throw .noCandidate }
        self.init(credentials: ICECredentials(ufrag: ufrag, pwd: pwd), address: address, fingerprint: fingerprint)
    }

    /// `1 1 udp 2130706431 127.0.0.1 59807 typ host` → 127.0.0.1:59807.
    private static func hostAddress(_ candidate: String) -> TransportAddress? {
        let fields = candidate.split(separator: " ")
        guard fields.count >= 8, fields[2].lowercased() == "udp", fields[6] == "typ", fields[7] == "host",
            let ip = IPAddress(String(fields[4])), let port = UInt16(fields[5])
        else { return nil }
        return TransportAddress(ip: ip, port: port)
    }
}

/// Why an answer gives a client nothing to connect to.
public enum MediaAnswerError: Error, Sendable, Hashable {
    case noMediaSection
    case noICECredentials
    case noFingerprint
    case noCandidate
}
