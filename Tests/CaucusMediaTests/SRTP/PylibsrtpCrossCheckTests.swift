import CaucusMedia
import Testing

/// Packets this module protects decrypt in libsrtp and the other way round, for both
/// profiles, across a sequence-number wrap, with CSRCs and header extensions, RTP and RTCP;
/// and libsrtp's replays and forgeries are refused here too.
@Suite struct PylibsrtpCrossCheckTests {
    /// Sequence numbers from 65,530 through the wrap to 40, three SSRCs interleaved.
    static func packets() -> [[UInt8]] {
        var packets: [[UInt8]] = []
        for step in 0..<46 {
            let sequence = UInt16(truncatingIfNeeded: 65_530 + step)
            let ssrc: UInt32 = [0x1111_1111, 0x2222_2222, 0xDEAD_BEEF][step % 3]
            packets.append(
                SRTPTestPackets.rtp(
                    sequence: sequence, ssrc: ssrc, payloadLength: step * 23 % 1_100,
                    csrcs: step % 4, extensionWords: step % 5 == 0 ? 2 : 0))
        }
        return packets
    }

    static func reports() -> [[UInt8]] {
        (0..<5).map { SRTPTestPackets.rtcp(ssrc: 0xCAFE_0000 + UInt32($0 % 2), seed: UInt8($0)) }
    }

    @Test(arguments: SRTPProfile.allCases)
    func libsrtpDecryptsWhatWeProtect(profile: SRTPProfile) async throws {
        let material = SRTPTestPackets.keyingMaterial(profile, seed: 42)
        let ours = try SRTPContext(profile: profile, keyingMaterial: material)
        var operations: [(PylibsrtpPeer.Operation, [UInt8])] = []
        for packet in Self.packets() {
            var protected = packet
            try ours.protect(rtp: &protected)
            operations.append((.unprotectRTP, protected))
        }
        for report in Self.reports() {
            var protected = report
            try ours.protect(rtcp: &protected)
            operations.append((.unprotectRTCP, protected))
        }
        let answers = try await PylibsrtpPeer.run(profile, material, operations)
        #expect(answers == (Self.packets() + Self.reports()).map { .packet($0) })
    }

    @Test(arguments: SRTPProfile.allCases)
    func weDecryptWhatLibsrtpProtects(profile: SRTPProfile) async throws {
        let material = SRTPTestPackets.keyingMaterial(profile, seed: 43)
        let operations =
            Self.packets().map { (PylibsrtpPeer.Operation.protectRTP, $0) }
            + Self.reports().map { (PylibsrtpPeer.Operation.protectRTCP, $0) }
        let answers = try await PylibsrtpPeer.run(profile, material, operations)
        let ours = try SRTPContext(profile: profile, keyingMaterial: material)
        var decrypted: [[UInt8]] = []
        for (answer, (operation, _)) in zip(answers, operations) {
            guard case .packet(var packet) = answer else {
                Issue.record("libsrtp refused to protect: \(answer)")
                continue
            }
            if operation == .protectRTP {
                try ours.unprotect(srtp: &packet)
            } else {
                try ours.unprotect(srtcp: &packet)
            }
            decrypted.append(packet)
        }
        #expect(decrypted == Self.packets() + Self.reports())

        // libsrtp's packets replayed, and one with a flipped bit, are refused here as well.
        guard case .packet(var replay) = answers[0] else { return }
        #expect(throws: SRTPError.replayed) { try ours.unprotect(srtp: &replay) }
        let fresh = try await PylibsrtpPeer.run(profile, material, [(.protectRTP, SRTPTestPackets.rtp(sequence: 7))])
        guard case .packet(var tampered) = fresh[0] else { return }
        tampered[tampered.count - 2] ^= 4
        #expect(throws: SRTPError.authenticationFailed) { try ours.unprotect(srtp: &tampered) }
    }

    /// Many streams at once, as a subscriber with many slots receives: twenty SSRCs (more than
    /// a context keeps inline, ``SRTPOutboundCounters``), half wrapping each at its own step and
    /// half far from a wrap, so a stream given another's rollover counter would fail libsrtp's
    /// tag (a counter past its wrap makes 30,000 read as the next lap's).
    @Test(arguments: SRTPProfile.allCases)
    func libsrtpDecryptsManyStreamsEachAcrossItsOwnWrap(profile: SRTPProfile) async throws {
        let material = SRTPTestPackets.keyingMaterial(profile, seed: 45)
        let ours = try SRTPContext(profile: profile, keyingMaterial: material)
        var packets: [[UInt8]] = []
        for round in 0..<12 {
            for stream in 0..<20 {
                // An even stream k starts at 65,535 - k/2 and wraps in round k/2 + 1; an odd one
                // starts at 30,000 + k.
                let first = stream % 2 == 0 ? 65_535 - stream / 2 : 30_000 + stream
                let sequence = UInt16(truncatingIfNeeded: first + round)
                packets.append(SRTPTestPackets.rtp(sequence: sequence, ssrc: 0x5000_0000 + UInt32(stream) * 0x1_0001, payloadLength: 20 + stream))
            }
        }
        var operations: [(PylibsrtpPeer.Operation, [UInt8])] = []
        for packet in packets {
            var protected = packet
            try ours.protect(rtp: &protected)
            operations.append((.unprotectRTP, protected))
        }
        let answers = try await PylibsrtpPeer.run(profile, material, operations)
        #expect(answers == packets.map { .packet($0) })
    }

    /// And libsrtp refuses our packets once tampered with: the tag is really checked there.
    @Test(arguments: SRTPProfile.allCases)
    func libsrtpRefusesOurForgeries(profile: SRTPProfile) async throws {
        let material = SRTPTestPackets.keyingMaterial(profile, seed: 44)
        let ours = try SRTPContext(profile: profile, keyingMaterial: material)
        var packet = SRTPTestPackets.rtp(sequence: 10)
        try ours.protect(rtp: &packet)
        var tampered = packet
        tampered[14] ^= 1
        let answers = try await PylibsrtpPeer.run(profile, material, [(.unprotectRTP, tampered), (.unprotectRTP, packet), (.unprotectRTP, packet)])
        #expect(answers[0] != .packet(SRTPTestPackets.rtp(sequence: 10)))
        #expect(answers[1] == .packet(SRTPTestPackets.rtp(sequence: 10)))
        #expect(answers[2] != .packet(SRTPTestPackets.rtp(sequence: 10)))
    }
}
