/// One direction's keyed cipher for RTP or for RTCP: the session salt and the BoringSSL
/// contexts of the profile, built once from the session keys.
enum SRTPTransform {
    case gcm(AESGCMContext, salt: SRTPSalt)
    case counterMode(AESCounterModeContext, HMACSHA1Context, salt: SRTPSalt)

    init(profile: SRTPProfile, keys: SRTPSessionKeys) throws(SRTPError) {
        guard keys.encryptionKey.count == profile.keyLength, keys.salt.count == profile.saltLength,
            let salt = SRTPSalt(keys.salt)
        else {
            throw .invalidKeyingMaterial
        }
        switch profile {
        case .aeadAES128GCM:
            self = .gcm(try AESGCMContext(key: keys.encryptionKey), salt: salt)
        case .aesCM128HMACSHA1_80:
            guard keys.authenticationKey.count == HMACSHA1Context.outputLength else {
                throw .invalidKeyingMaterial
            }
            self = .counterMode(
                try AESCounterModeContext(key: keys.encryptionKey),
                try HMACSHA1Context(key: keys.authenticationKey),
                salt: salt
            )
        }
    }

    var tagLength: Int {
        switch self {
        case .gcm: AESGCMContext.tagLength
        case .counterMode: 10
        }
    }
}

/// Counter blocks and nonces, built on the stack.
enum SRTPNonce {
    /// AES-CM counter block (RFC 3711 §4.1.1): `(salt << 16) XOR (SSRC << 64) XOR (index << 16)`.
    static func withCounterBlock<R>(
        salt: SRTPSalt,
        ssrc: UInt32,
        index: UInt64,
        _ body: (UnsafeRawBufferPointer) throws(SRTPError) -> R
    ) throws(SRTPError) -> R {
        var block: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &block) { bytes in
            salt.copy(into: bytes)
            xorBigEndian(ssrc, into: bytes, at: 4, width: 4)
            xorBigEndian(index, into: bytes, at: 8, width: 6)
        }
        return try withUnsafeBytes(of: &block) { (bytes) throws(SRTPError) -> R in try body(bytes) }
    }

    /// GCM nonce (RFC 7714 §8.1 and §9.1): `salt XOR (0^16 || SSRC || counter)`, where the
    /// 48-bit counter is ROC || SEQ for SRTP and 0^16 || index for SRTCP.
    static func withGCMNonce<R>(
        salt: SRTPSalt,
        ssrc: UInt32,
        counter: UInt64,
        _ body: (UnsafeRawBufferPointer) throws(SRTPError) -> R
    ) throws(SRTPError) -> R {
        var nonce: (UInt64, UInt32) = (0, 0)
        withUnsafeMutableBytes(of: &nonce) { bytes in
            salt.copy(into: bytes)
            xorBigEndian(ssrc, into: bytes, at: 2, width: 4)
            xorBigEndian(counter, into: bytes, at: 6, width: 6)
        }
        return try withUnsafeBytes(of: &nonce) { (bytes) throws(SRTPError) -> R in
            try body(UnsafeRawBufferPointer(rebasing: bytes[0..<12]))
        }
    }

    private static func xorBigEndian<T: FixedWidthInteger>(
        _ value: T,
        into bytes: UnsafeMutableRawBufferPointer,
        at offset: Int,
        width: Int
    ) {
        for i in 0..<width {
            bytes[offset + i] ^= UInt8(truncatingIfNeeded: value >> ((width - 1 - i) * 8))
        }
    }
}
