import CaucusMedia
import Testing

/// DTLS keys the SRTP sessions of both ends, which then carry media both ways.
@Suite struct SRTPSessionTests {
    @Test(arguments: SRTPProfile.allCases)
    func aHandshakeKeysMediaBothWays(profile: SRTPProfile) throws {
        var pair = try DTLSPair(clientProfiles: [profile])
        pair.run()
        let client = try SRTPSession(keys: try #require(DTLSPair.keys(pair.clientEvents)))
        let server = try SRTPSession(keys: try #require(DTLSPair.keys(pair.serverEvents)))
        #expect(client.profile == profile && server.profile == profile)

        for sequence in UInt16(0)..<20 {
            let upstream = SRTPTestPackets.rtp(sequence: sequence, ssrc: 0xA0A0_A0A0, payloadLength: 160)
            var packet = upstream
            try client.protect(rtp: &packet)
            try server.unprotect(srtp: &packet)
            #expect(packet == upstream)

            let downstream = SRTPTestPackets.rtp(sequence: sequence &+ 1_000, ssrc: 0xB0B0_B0B0, payloadLength: 1_000)
            packet = downstream
            try server.protect(rtp: &packet)
            try client.unprotect(srtp: &packet)
            #expect(packet == downstream)
        }
        var report = SRTPTestPackets.rtcp(ssrc: 0xB0B0_B0B0)
        try server.protect(rtcp: &report)
        try client.unprotect(srtcp: &report)
        #expect(report == SRTPTestPackets.rtcp(ssrc: 0xB0B0_B0B0))

        // Each direction has its own key: a packet reflected back to its sender is refused.
        var reflected = SRTPTestPackets.rtp(sequence: 5_000, ssrc: 0xC0C0_C0C0)
        try client.protect(rtp: &reflected)
        #expect(throws: SRTPError.authenticationFailed) { try client.unprotect(srtp: &reflected) }
    }

    /// A close_notify ends the peer's association with an event.
    @Test func closeNotifyReachesThePeer() throws {
        var pair = try DTLSPair()
        pair.run()
        let output = pair.client.close(now: pair.now)
        #expect(pair.client.state == .closed)
        #expect(!output.datagrams.isEmpty)
        var events: [DTLSEndpoint.Event] = []
        for datagram in output.datagrams { events += pair.server.receive(datagram, now: pair.now).events }
        #expect(events == [.failed(.closed(reason: "close_notify"))])
        #expect(pair.server.state == .failed)
    }
}
