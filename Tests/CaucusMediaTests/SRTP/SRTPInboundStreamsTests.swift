@testable import CaucusMedia
import Testing

/// The state a context keeps per received SSRC is bounded: a peer that sends from SSRCs
/// without end (every packet with a good tag: it holds the keys) costs 64 records, not one per
/// SSRC, and the streams it keeps using are never the ones forgotten.
@Suite struct SRTPInboundStreamsTests {
    @Test(arguments: SRTPProfile.allCases)
    func rtpFromEndlessSSRCsKeepsAtMostTheCeilingAndNeverTheStreamInUse(profile: SRTPProfile) throws {
        let (sender, receiver) = try SRTPTestPackets.pair(profile)
        let steady: UInt32 = 0x0A0A_0A0A
        var steadySent: [[UInt8]] = []
        var sequence: UInt16 = 0
        for stranger in UInt32(1)...500 {
            // The steady stream goes on between the strangers.
            var packet = SRTPTestPackets.rtp(sequence: sequence, ssrc: steady, payloadLength: 8)
            sequence &+= 1
            try sender.protect(rtp: &packet)
            steadySent.append(packet)
            var copy = packet
            try receiver.unprotect(srtp: &copy)
            var other = SRTPTestPackets.rtp(sequence: 7, ssrc: stranger, payloadLength: 8)
            try sender.protect(rtp: &other)
            try receiver.unprotect(srtp: &other)
            let count = receiver.inboundRTP.count
            #expect(count <= SRTPInboundStreams<SRTPContext.InboundRTPStream>.standardCapacity)
        }
        let (kept, keptSteady) = (receiver.inboundRTP.count, receiver.inboundRTP.contains(steady))
        #expect(kept == 64)
        #expect(keptSteady, "the stream in use was kept")
        // Its replay window is the one it had: an old packet of it is still a replay.
        var replayed = steadySent[steadySent.count - 2]
        #expect(throws: SRTPError.replayed) { try receiver.unprotect(srtp: &replayed) }
        // The first strangers were forgotten; a packet of one starts its record again.
        let keptFirst = receiver.inboundRTP.contains(1)
        #expect(!keptFirst)
    }

    @Test(arguments: SRTPProfile.allCases)
    func rtcpFromEndlessSSRCsKeepsAtMostTheCeiling(profile: SRTPProfile) throws {
        let (sender, receiver) = try SRTPTestPackets.pair(profile)
        var steadySent: [[UInt8]] = []
        for stranger in UInt32(1)...300 {
            var steady = SRTPTestPackets.rtcp(ssrc: 0x0B0B_0B0B)
            try sender.protect(rtcp: &steady)
            steadySent.append(steady)
            try receiver.unprotect(srtcp: &steady)
            var other = SRTPTestPackets.rtcp(ssrc: stranger)
            try sender.protect(rtcp: &other)
            try receiver.unprotect(srtcp: &other)
        }
        let kept = receiver.inboundRTCP.count
        #expect(kept == 64)
        var replayed = steadySent[steadySent.count - 2]
        #expect(throws: SRTPError.replayed) { try receiver.unprotect(srtcp: &replayed) }
    }

    @Test func theStalestGivesWayAndAKnownOneIsChangedInPlace() {
        var streams = SRTPInboundStreams<Int>(capacity: 3)
        for ssrc in UInt32(1)...3 { streams.accept(Int(ssrc), for: ssrc, at: nil) }
        // 1 is used again: 2 is now the stalest.
        streams.accept(10, for: 1, at: streams.position(of: 1))
        streams.accept(4, for: 4, at: nil)
        #expect(streams.count == 3)
        #expect(!streams.contains(2) && streams.state(of: 1) == 10 && streams.state(of: 3) == 3 && streams.state(of: 4) == 4)
    }
}
