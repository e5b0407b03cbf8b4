@testable import CaucusMedia
import Testing

/// The RFCs' own vectors: without them a round trip only proves the code agrees with itself.
@Suite struct SRTPKnownAnswerTests {
    /// RFC 3711 B.2: the AES-CM keystream for session key 2B7E…, salt F0F1…FD, SSRC 0,
    /// index 0, including the blocks around the 16-bit counter's carry (FEFF, FF00, FF01).
    @Test func aesCounterModeKeystream() throws {
        let context = try AESCounterModeContext(key: hex("2B7E151628AED2A6ABF7158809CF4F3C"))
        let salt = try #require(SRTPSalt(hex("F0F1F2F3F4F5F6F7F8F9FAFBFCFD")))
        var keystream = [UInt8](repeating: 0, count: 16 * 0xFF02)
        try SRTPNonce.withCounterBlock(salt: salt, ssrc: 0, index: 0) { iv in
            keystream.withUnsafeMutableBytes { context.apply(iv: iv, to: $0) }
        }
        func block(_ counter: Int) -> String { hexString(keystream[(16 * counter)..<(16 * counter + 16)]) }
        #expect(block(0) == "e03ead0935c95e80e166b16dd92b4eb4")
        #expect(block(1) == "d23513162b02d0f72a43a2fe4a5f97ab")
        #expect(block(2) == "41e95b3bb0a2e8dd477901e4fca894c0")
        #expect(block(0xFEFF) == "ec8cdf7398607cb0f2d21675ea9ea1e4")
        #expect(block(0xFF00) == "362b7c3c6773516318a077d7fc5073ae")
        #expect(block(0xFF01) == "6a2cc3787889374fbeb4c81b17ba6c44")
    }

    /// RFC 3711 B.3: session keys from master key E1F9… and master salt 0EC6….
    @Test func keyDerivation() throws {
        let master = SRTPKeyingMaterial(
            masterKey: hex("E1F97A0D3E018BE0D64FA32C06DE4139"),
            masterSalt: hex("0EC675AD498AFEEBB6960B3AABE6")
        )
        #expect(
            try SRTPKeyDerivation.derive(.rtpEncryption, length: 16, from: master)
                == hex("C61E7A93744F39EE10734AFE3FF7A087"))
        #expect(
            try SRTPKeyDerivation.derive(.rtpSalt, length: 14, from: master)
                == hex("30CBBC08863D8C85D49DB34A9AE1"))
        // All 94 octets the RFC prints: six AES blocks, so the counter must advance too.
        #expect(
            try SRTPKeyDerivation.derive(.rtpAuthentication, length: 94, from: master)
                == hex(
                    """
                    CEBE321F6FF7716B6FD4AB49AF256A15 6D38BAA48F0A0ACF3C34E2359E6CDBCE
                    E049646C43D9327AD175578EF7227098 6371C10C9A369AC2F94A8C5FBCDDDC25
                    6D6E919A48B610EF17C2041E47403576 6B68642C59BBFC2F34DB60DBDFB2
                    """))
        let keys = try SRTPKeyDerivation.sessionKeys(for: .aesCM128HMACSHA1_80, rtcp: false, from: master)
        #expect(keys.authenticationKey == hex("CEBE321F6FF7716B6FD4AB49AF256A156D38BAA4"))
    }

    // RFC 7714 §16 and §17: AEAD_AES_128_GCM with the session key and salt given directly.
    static let gcmKeys = SRTPSessionKeys(
        encryptionKey: hex("000102030405060708090a0b0c0d0e0f"),
        authenticationKey: [],
        salt: hex("517569642070726f2071756f")
    )
    static let rtpPlaintext = hex(
        """
        8040f17b 8041f8d3 5501a0b2 47616c6c 69612065 7374206f 6d6e6973
        20646976 69736120 696e2070 61727465 73207472 6573
        """)
    static let rtpProtected = hex(
        """
        8040f17b 8041f8d3 5501a0b2 f24de3a3 fb34de6c acba861c 9d7e4bca
        be633bd5 0d294e6f 42a5f47a 51c7d19b 36de3adf 8833899d 7f27beb1
        6a9152cf 765ee439 0cce
        """)
    static let rtcpPlaintext = hex(
        """
        81c8000d 4d617273 4e545031 4e545032 52545020 0000042a 0000e930
        4c756e61 deadbeef deadbeef deadbeef deadbeef deadbeef
        """)
    static let rtcpProtected = hex(
        """
        81c8000d 4d617273 63e94885 dcdab67c a727d766 2f6b7e99 7ff5c0f7
        6c06f32d c676a5f1 730d6fda 4ce09b46 86303ded 0bb9275b c84aa458
        96cf4d2f c5abf872 45d9eade 800005d4
        """)

    func gcmContext() throws -> SRTPContext {
        try SRTPContext(profile: .aeadAES128GCM, rtpKeys: Self.gcmKeys, rtcpKeys: Self.gcmKeys)
    }

    @Test func gcmRTPProtect() throws {
        var packet = Self.rtpPlaintext
        try gcmContext().protect(rtp: &packet)
        #expect(hexString(packet) == hexString(Self.rtpProtected))
    }

    @Test func gcmRTPUnprotect() throws {
        var packet = Self.rtpProtected
        try gcmContext().unprotect(srtp: &packet)
        #expect(packet == Self.rtpPlaintext)
    }

    @Test func gcmRTCPProtect() throws {
        let context = try gcmContext()
        context.outboundRTCPIndex[0x4d61_7273] = 0x5d4
        var packet = Self.rtcpPlaintext
        try context.protect(rtcp: &packet)
        #expect(hexString(packet) == hexString(Self.rtcpProtected))
    }

    @Test func gcmRTCPUnprotect() throws {
        var packet = Self.rtcpProtected
        try gcmContext().unprotect(srtcp: &packet)
        #expect(packet == Self.rtcpPlaintext)
    }

    @Test func gcmVectorsRefuseATamperedTag() throws {
        var rtp = Self.rtpProtected
        rtp[rtp.count - 1] ^= 1
        #expect(throws: SRTPError.authenticationFailed) { try gcmContext().unprotect(srtp: &rtp) }
        var rtcp = Self.rtcpProtected
        rtcp[rtcp.count - 5] ^= 1
        #expect(throws: SRTPError.authenticationFailed) { try gcmContext().unprotect(srtcp: &rtcp) }
    }
}
