/// The session keys of one SRTP or SRTCP direction, derived once from the master key.
struct SRTPSessionKeys {
    var encryptionKey: [UInt8]
    /// HMAC-SHA1 key (20 bytes) for AES-CM; GCM authenticates with its own tag.
    var authenticationKey: [UInt8]
    var salt: [UInt8]
}

/// The AES-CM pseudo-random function of RFC 3711 §4.3, with a key derivation rate of zero
/// (the only one DTLS-SRTP uses), so each session key is derived once.
enum SRTPKeyDerivation {
    enum Label: UInt8 {
        case rtpEncryption = 0, rtpAuthentication = 1, rtpSalt = 2
        case rtcpEncryption = 3, rtcpAuthentication = 4, rtcpSalt = 5
    }

    /// `length` bytes of `PRF(master key, (label || 0^48) XOR master salt)`.
    ///
    /// A 96-bit GCM master salt is padded with zeros to 112 bits first (RFC 7714 §11).
    static func derive(
        _ label: Label,
        length: Int,
        from master: SRTPKeyingMaterial
    ) throws(SRTPError) -> [UInt8] {
        guard master.masterKey.count == 16, master.masterSalt.count <= 14 else {
            throw .invalidKeyingMaterial
        }
        let prf = try AESCounterModeContext(key: master.masterKey)
        var iv = [UInt8](repeating: 0, count: 16)
        iv.replaceSubrange(0..<master.masterSalt.count, with: master.masterSalt)
        // key_id = label || r (48 bits, zero) sits in the low 56 bits of the 112-bit salt.
        iv[7] ^= label.rawValue
        var output = [UInt8](repeating: 0, count: length)
        iv.withUnsafeBytes { iv in
            output.withUnsafeMutableBytes { prf.apply(iv: iv, to: $0) }
        }
        return output
    }

    /// The RTP (`rtcp == false`) or RTCP session keys of `profile`.
    static func sessionKeys(
        for profile: SRTPProfile,
        rtcp: Bool,
        from master: SRTPKeyingMaterial
    ) throws(SRTPError) -> SRTPSessionKeys {
        guard master.fits(profile) else { throw .invalidKeyingMaterial }
        let (encryption, authentication, salt): (Label, Label, Label) =
            rtcp
            ? (.rtcpEncryption, .rtcpAuthentication, .rtcpSalt)
            : (.rtpEncryption, .rtpAuthentication, .rtpSalt)
        let authenticationLength = profile == .aesCM128HMACSHA1_80 ? HMACSHA1Context.outputLength : 0
        return SRTPSessionKeys(
            encryptionKey: try derive(encryption, length: profile.keyLength, from: master),
            authenticationKey: try derive(authentication, length: authenticationLength, from: master),
            salt: try derive(salt, length: profile.saltLength, from: master)
        )
    }
}
