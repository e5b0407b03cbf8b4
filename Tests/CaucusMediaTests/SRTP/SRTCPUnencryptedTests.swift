@testable import CaucusMedia
import Testing

/// SRTCP with the E flag clear (RFC 3711 §3.4, RFC 7714 §9.2): authenticated, not encrypted.
/// We never send it, but a peer may; built here from the same session keys and primitives.
@Suite struct SRTCPUnencryptedTests {
    static let ssrc: UInt32 = 0x1234_5678

    static func unencrypted(_ plain: [UInt8], profile: SRTPProfile, material: SRTPKeyingMaterial, index: UInt32) throws -> [UInt8] {
        let keys = try SRTPKeyDerivation.sessionKeys(for: profile, rtcp: true, from: material)
        let word = SRTPTestPackets.bigEndian(index)  // E clear
        switch profile {
        case .aesCM128HMACSHA1_80:
            let hmac = try HMACSHA1Context(key: keys.authenticationKey)
            let authenticated = plain + word
            var tag = [UInt8](repeating: 0, count: 20)
            try authenticated.withBytes { (authenticated) throws(SRTPError) in
                try tag.withMutableBytes { (tag) throws(SRTPError) in
                    try hmac.authenticate(authenticated, UnsafeRawBufferPointer(start: nil, count: 0), into: tag)
                }
            }
            return authenticated + tag.prefix(10)
        case .aeadAES128GCM:
            // The whole packet and the index word are associated data; the tag covers an
            // empty plaintext.
            let gcm = try AESGCMContext(key: keys.encryptionKey)
            let additionalData = plain + word
            var tag = [UInt8](repeating: 0, count: 16)
            try SRTPNonce.withGCMNonce(salt: try #require(SRTPSalt(keys.salt)), ssrc: ssrc, counter: UInt64(index)) { (nonce) throws(SRTPError) in
                try additionalData.withBytes { (additionalData) throws(SRTPError) in
                    try tag.withMutableBytes { (tag) throws(SRTPError) in
                        try gcm.seal(nonce: nonce, additionalData: additionalData, buffer: tag, plaintextLength: 0)
                    }
                }
            }
            return plain + tag + word
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func isAuthenticatedAndPassedThroughInTheClear(profile: SRTPProfile) throws {
        let material = SRTPTestPackets.keyingMaterial(profile, seed: 9)
        let receiver = try SRTPContext(profile: profile, keyingMaterial: material)
        let plain = SRTPTestPackets.rtcp(ssrc: Self.ssrc)
        let packet = try Self.unencrypted(plain, profile: profile, material: material, index: 5)
        #expect(packet.prefix(plain.count).elementsEqual(plain), "the body travels in the clear")

        var tampered = packet
        tampered[12] ^= 1
        #expect(throws: SRTPError.authenticationFailed) { try receiver.unprotect(srtcp: &tampered) }
        var flagged = packet
        flagged[packet.count - (profile == .aeadAES128GCM ? 4 : 14)] |= 0x80  // claims E
        #expect(throws: SRTPError.authenticationFailed) { try receiver.unprotect(srtcp: &flagged) }

        var received = packet
        try receiver.unprotect(srtcp: &received)
        #expect(received == plain)
        var again = packet
        #expect(throws: SRTPError.replayed) { try receiver.unprotect(srtcp: &again) }
    }
}
