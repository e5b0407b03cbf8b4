/// What a completed DTLS-SRTP handshake yields (RFC 5764 §4.2): the negotiated profile, the
/// keying material for each direction, and the peer certificate's fingerprint.
public struct DTLSSRTPKeys: Sendable, Hashable {
    public var profile: SRTPProfile
    /// Protects what this endpoint sends.
    public var local: SRTPKeyingMaterial
    /// Unprotects what the peer sends.
    public var remote: SRTPKeyingMaterial
    public var peerFingerprint: DTLSFingerprint

    /// The exporter label of RFC 5764 §4.2.
    public static let exporterLabel = "EXTRACTOR-dtls_srtp"

    /// Splits the exporter's output, `client key | server key | client salt | server salt`.
    init?(exported: [UInt8], profile: SRTPProfile, isClient: Bool, peerFingerprint: DTLSFingerprint) {
        let key = profile.keyLength, salt = profile.saltLength
        guard exported.count == 2 * (key + salt) else { return nil }
        let client = SRTPKeyingMaterial(
            masterKey: Array(exported[0..<key]),
            masterSalt: Array(exported[(2 * key)..<(2 * key + salt)])
        )
        let server = SRTPKeyingMaterial(
            masterKey: Array(exported[key..<(2 * key)]),
            masterSalt: Array(exported[(2 * key + salt)..<(2 * key + 2 * salt)])
        )
        self.profile = profile
        local = isClient ? client : server
        remote = isClient ? server : client
        self.peerFingerprint = peerFingerprint
    }

    /// The exporter's output again, in its wire order: what `openssl s_client
    /// -keymatexport EXTRACTOR-dtls_srtp` prints.
    public func exportedKeyingMaterial(isClient: Bool) -> [UInt8] {
        let (client, server) = isClient ? (local, remote) : (remote, local)
        return client.masterKey + server.masterKey + client.masterSalt + server.masterSalt
    }
}

extension DTLSSRTPKeys: CustomStringConvertible {
    /// Never the keys: they must not reach logs.
    public var description: String { "DTLSSRTPKeys(\(profile), peer \(peerFingerprint))" }
}
