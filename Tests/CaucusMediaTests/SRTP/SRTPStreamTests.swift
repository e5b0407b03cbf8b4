@testable import CaucusMedia
import Testing

/// Round trips, rollover, reordering and replays, for both profiles.
@Suite struct SRTPStreamTests {
    @Test(arguments: SRTPProfile.allCases)
    func roundTripKeepsHeadersAndPayloads(profile: SRTPProfile) throws {
        let (sender, receiver) = try SRTPTestPackets.pair(profile)
        for (index, shape) in [(0, 0), (2, 0), (0, 3), (15, 2)].enumerated() {
            let plain = SRTPTestPackets.rtp(sequence: UInt16(index), payloadLength: 10 * index, csrcs: shape.0, extensionWords: shape.1)
            var packet = plain
            try sender.protect(rtp: &packet)
            #expect(packet.count == plain.count + profile.tagLength)
            #expect(packet != plain + packet.suffix(profile.tagLength) || index == 0)
            try receiver.unprotect(srtp: &packet)
            #expect(packet == plain)
        }
        let plainRTCP = SRTPTestPackets.rtcp()
        var rtcp = plainRTCP
        try sender.protect(rtcp: &rtcp)
        #expect(rtcp.count == plainRTCP.count + 4 + profile.tagLength)
        #expect(rtcp[8..<plainRTCP.count] != plainRTCP[8...])
        try receiver.unprotect(srtcp: &rtcp)
        #expect(rtcp == plainRTCP)
    }

    /// The sequence number wraps twice; the receiver follows the rollover counter through
    /// gaps and through packets from before a wrap that arrive after it.
    @Test(arguments: SRTPProfile.allCases)
    func rolloverAndReordering(profile: SRTPProfile) throws {
        let (sender, receiver) = try SRTPTestPackets.pair(profile)
        let firstSequence: UInt16 = 65_500
        let firstWrap = 36, secondWrap = 36 + 65_536
        var sent: [[UInt8]] = []
        for offset in 0..<(secondWrap + 40) {
            var packet = SRTPTestPackets.rtp(sequence: firstSequence &+ UInt16(truncatingIfNeeded: offset), payloadLength: 4)
            try sender.protect(rtp: &packet)
            sent.append(packet)
        }
        let shuffle = [0, 2, 1, 7, 3, 4, 6, 5, 9, 8, 10, 12, 11, 15, 13, 14]
        var delivered = Array(0..<(firstWrap - 8))
        delivered += shuffle.map { firstWrap - 8 + $0 }
        delivered += stride(from: firstWrap + 20, to: secondWrap - 8, by: 997)
        delivered += shuffle.map { secondWrap - 8 + $0 }
        for offset in delivered {
            var packet = sent[offset]
            try receiver.unprotect(srtp: &packet)
            #expect(packet == SRTPTestPackets.rtp(sequence: firstSequence &+ UInt16(truncatingIfNeeded: offset), payloadLength: 4))
        }
        var replayedAcrossTheWrap = sent[secondWrap - 3]
        #expect(throws: SRTPError.replayed) { try receiver.unprotect(srtp: &replayedAcrossTheWrap) }
    }

    @Test(arguments: SRTPProfile.allCases)
    func replaysAndOldPacketsAreRefused(profile: SRTPProfile) throws {
        let (sender, receiver) = try SRTPTestPackets.pair(profile)
        var packets: [[UInt8]] = []
        for sequence in UInt16(0)..<200 {
            var packet = SRTPTestPackets.rtp(sequence: sequence)
            try sender.protect(rtp: &packet)
            packets.append(packet)
        }
        var first = packets[0]
        try receiver.unprotect(srtp: &first)
        var again = packets[0]
        #expect(throws: SRTPError.replayed) { try receiver.unprotect(srtp: &again) }
        var latest = packets[199]
        try receiver.unprotect(srtp: &latest)
        var tooOld = packets[10]  // 189 behind: outside the 128-packet window
        #expect(throws: SRTPError.tooOld) { try receiver.unprotect(srtp: &tooOld) }
        var late = packets[150]  // 49 behind, never seen: accepted once
        try receiver.unprotect(srtp: &late)
        var lateAgain = packets[150]
        #expect(throws: SRTPError.replayed) { try receiver.unprotect(srtp: &lateAgain) }

        var rtcp: [[UInt8]] = []
        for seed in 0..<3 {
            var packet = SRTPTestPackets.rtcp(seed: UInt8(seed))
            try sender.protect(rtcp: &packet)
            rtcp.append(packet)
        }
        var second = rtcp[1]
        try receiver.unprotect(srtcp: &second)
        var secondAgain = rtcp[1]
        #expect(throws: SRTPError.replayed) { try receiver.unprotect(srtcp: &secondAgain) }
        var firstRTCP = rtcp[0]
        try receiver.unprotect(srtcp: &firstRTCP)
    }

    /// A forged packet must not move the replay window or the rollover counter: the genuine
    /// packet with the same index is still accepted afterwards.
    @Test(arguments: SRTPProfile.allCases)
    func forgeriesLeaveTheStateAlone(profile: SRTPProfile) throws {
        let (sender, receiver) = try SRTPTestPackets.pair(profile)
        var genuine = SRTPTestPackets.rtp(sequence: 40_000)
        try sender.protect(rtp: &genuine)
        var forged = genuine
        forged[forged.count - 1] ^= 0x80
        #expect(throws: SRTPError.authenticationFailed) { try receiver.unprotect(srtp: &forged) }
        var copy = genuine
        try receiver.unprotect(srtp: &copy)

        var genuineRTCP = SRTPTestPackets.rtcp()
        try sender.protect(rtcp: &genuineRTCP)
        var forgedRTCP = genuineRTCP
        forgedRTCP[9] ^= 0x01
        #expect(throws: SRTPError.authenticationFailed) { try receiver.unprotect(srtcp: &forgedRTCP) }
        try receiver.unprotect(srtcp: &genuineRTCP)
    }

    @Test(arguments: SRTPProfile.allCases)
    func otherKeysAreRefused(profile: SRTPProfile) throws {
        let sender = try SRTPContext(profile: profile, keyingMaterial: SRTPTestPackets.keyingMaterial(profile, seed: 1))
        let receiver = try SRTPContext(profile: profile, keyingMaterial: SRTPTestPackets.keyingMaterial(profile, seed: 2))
        var packet = SRTPTestPackets.rtp(sequence: 1)
        try sender.protect(rtp: &packet)
        #expect(throws: SRTPError.authenticationFailed) { try receiver.unprotect(srtp: &packet) }
    }

    @Test func wrongKeyLengthsAreRefused() {
        let gcmMaterial = SRTPTestPackets.keyingMaterial(.aeadAES128GCM, seed: 1)
        #expect(throws: SRTPError.invalidKeyingMaterial) {
            try SRTPContext(profile: .aesCM128HMACSHA1_80, keyingMaterial: gcmMaterial)
        }
        #expect(throws: SRTPError.invalidKeyingMaterial) {
            try SRTPContext(profile: .aeadAES128GCM, keyingMaterial: SRTPKeyingMaterial(masterKey: [1, 2], masterSalt: gcmMaterial.masterSalt))
        }
    }

    @Test func replayWindowEdges() {
        var window = SRTPReplayWindow(first: 1_000)
        #expect(window.check(1_000) == .replayed)
        #expect(window.check(1_001) == nil)
        #expect(window.check(1_000 - 127) == nil)
        #expect(window.check(1_000 - 128) == .tooOld)
        window.accept(1_000 + 500)
        #expect(window.check(1_000) == .tooOld)
        #expect(window.check(1_499) == nil)
        window.accept(1_499)
        #expect(window.check(1_499) == .replayed)
        #expect(window.check(1_500) == .replayed)
    }

    /// Against a plain set of accepted indices, over random jumps that cross both words of
    /// the window (ages 0…63, 64…127) and beyond it.
    @Test func replayWindowAgreesWithTheSetItStandsFor() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let first = UInt64.random(in: 200...1_000, using: &generator)
            var window = SRTPReplayWindow(first: first)
            var accepted: Set<UInt64> = [first]
            var highest = first
            for _ in 0..<300 {
                let index = max(1, highest + UInt64.random(in: 0...140, using: &generator)) - UInt64.random(in: 0...140, using: &generator)
                let expected: SRTPError? =
                    index > highest ? nil : highest - index >= SRTPReplayWindow.size ? .tooOld : accepted.contains(index) ? .replayed : nil
                #expect(window.check(index) == expected, "index \(index), highest \(highest)")
                if expected == nil {
                    window.accept(index)
                    accepted.insert(index)
                    highest = max(highest, index)
                }
            }
        }
    }

    @Test func rolloverEstimates() {
        var counter = SRTPRolloverCounter(first: 65_000)
        #expect(counter.estimate(65_001) == 65_001)
        #expect(counter.estimate(10) == 1 << 16 | 10)
        counter.accept(1 << 16 | 10)
        #expect(counter.rollover == 1)
        #expect(counter.estimate(65_100) == 65_100)  // from before the wrap
        #expect(counter.estimate(20_000) == 1 << 16 | 20_000)
        // No rollover below zero: a stream's first lap has nothing older.
        #expect(SRTPRolloverCounter(first: 100).estimate(60_000) == 60_000)
    }
}
