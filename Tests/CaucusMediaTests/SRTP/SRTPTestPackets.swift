@testable import CaucusMedia

/// RTP and RTCP packets for round trips: varied headers (CSRCs, a one-byte-header extension)
/// and payloads whose bytes depend on the sequence number.
enum SRTPTestPackets {
    static func rtp(sequence: UInt16, ssrc: UInt32 = 0x1234_5678, payloadLength: Int = 40, csrcs: Int = 0, extensionWords: Int = 0) -> [UInt8] {
        var packet: [UInt8] = [0x80 | UInt8(csrcs) | (extensionWords > 0 ? 0x10 : 0), 111]
        packet += [UInt8(sequence >> 8), UInt8(truncatingIfNeeded: sequence)]
        packet += [0x00, 0x01, 0xE2, 0x40]  // timestamp
        packet += bigEndian(ssrc)
        for csrc in 0..<csrcs { packet += bigEndian(UInt32(0xC000 + csrc)) }
        if extensionWords > 0 {
            packet += [0xBE, 0xDE, 0x00, UInt8(extensionWords)]
            packet += (0..<(4 * extensionWords)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        }
        packet += (0..<payloadLength).map { UInt8(truncatingIfNeeded: $0 &+ Int(sequence)) }
        return packet
    }

    /// A receiver report (PT 201) with one report block whose bytes depend on `seed`.
    static func rtcp(ssrc: UInt32 = 0x1234_5678, seed: UInt8 = 0) -> [UInt8] {
        var packet: [UInt8] = [0x81, 201, 0x00, 0x07]
        packet += bigEndian(ssrc)
        packet += (0..<24).map { UInt8(truncatingIfNeeded: Int($0) &+ Int(seed)) }
        return packet
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    static func keyingMaterial(_ profile: SRTPProfile, seed: UInt8) -> SRTPKeyingMaterial {
        SRTPKeyingMaterial(
            masterKey: (0..<profile.keyLength).map { UInt8(truncatingIfNeeded: Int($0) &* 31 &+ Int(seed)) },
            masterSalt: (0..<profile.saltLength).map { UInt8(truncatingIfNeeded: Int($0) &* 17 &+ Int(seed) &+ 1) }
        )
    }

    static func pair(_ profile: SRTPProfile, seed: UInt8 = 7) throws -> (sender: SRTPContext, receiver: SRTPContext) {
        let material = keyingMaterial(profile, seed: seed)
        return (
            try SRTPContext(profile: profile, keyingMaterial: material),
            try SRTPContext(profile: profile, keyingMaterial: material)
        )
    }
}
