/// What a client needs of the server's answer to connect: its ICE credentials, the address
/// of its one host candidate, and its certificate's fingerprint.
public struct MediaServerEndpoint: Sendable, Hashable {
    public var credentials: ICECredentials
    public var address: TransportAddress
    public var fingerprint: DTLSFingerprint
    /// The passive ICE-TCP candidate (RFC 6544), when the answer has one: where a client
    /// without UDP connects, sending the same packets framed by RFC 4571.
    public var tcpAddress: TransportAddress?

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
        guard let address = section.candidates.lazy.compactMap({ Self.hostAddress($0, transport: "udp") }).first else { throw .noCandidate }
        self.init(credentials: ICECredentials(ufrag: ufrag, pwd: pwd), address: address, fingerprint: fingerprint)
        tcpAddress = section.candidates.lazy.compactMap { Self.hostAddress($0, transport: "tcp") }.first
    }

    /// `1 1 udp 2130706431 127.0.0.1 59807 typ host` → 127.0.0.1:59807 (for "udp"); the same
    /// with `tcp … typ host tcptype passive` for "tcp".
    private static func hostAddress(_ candidate: String, transport: String) -> TransportAddress? {
        let fields = candidate.split(separator: " ")
        guard fields.count >= 8, fields[2].lowercased() == transport, fields[6] == "typ", fields[7] == "host",
            transport == "udp" || fields.dropFirst(8).starts(with: ["tcptype", "passive"]),
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
