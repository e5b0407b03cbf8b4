import CaucusMedia
import Testing

/// The server's `MediaPeer` against the client-role stack, in memory on a simulated clock.
@Suite struct MediaPeerTests {
    @Test func iceAndDTLSConnectAndMediaFlowsBothWays() throws {
        var harness = try PeerHarness()
        harness.connect()
        #expect(harness.server.state == .connected(PeerHarness.clientAddress))
        #expect(harness.serverEvents.first == .connected(address: PeerHarness.clientAddress, profile: .aeadAES128GCM))
        let clientSRTP = try #require(harness.clientSRTP)

        let sent = SRTPTestPackets.rtp(sequence: 7, ssrc: 0x1111_2222, payloadLength: 160)
        var protected = sent
        try clientSRTP.protect(rtp: &protected)
        var report = SRTPTestPackets.rtcp(ssrc: 0x1111_2222)
        try clientSRTP.protect(rtcp: &report)
        harness.toServer([protected, report])
        #expect(harness.serverRTP == [sent])
        #expect(harness.serverRTCP == [SRTPTestPackets.rtcp(ssrc: 0x1111_2222)])

        let downstream = SRTPTestPackets.rtp(sequence: 9, ssrc: 0x3333_4444, payloadLength: 500)
        let datagram = try #require(harness.server.protect(rtp: downstream))
        #expect(datagram.destination == PeerHarness.clientAddress)
        var received = datagram.bytes
        try clientSRTP.unprotect(srtp: &received)
        #expect(received == downstream)
        #expect(harness.server.counters == MediaPeerCounters())
    }

    /// The forwarding path's receive decrypts in the caller's array and appends to the caller's
    /// output: the event's packet is the caller's bytes (no copy), and the output's arrays are
    /// the caller's to keep.
    @Test func mediaIsDecryptedInPlaceIntoTheCallersOutput() throws {
        var harness = try PeerHarness()
        harness.connect()
        let clientSRTP = try #require(harness.clientSRTP)
        let sent = SRTPTestPackets.rtp(sequence: 7, ssrc: 0x1111_2222, payloadLength: 160)
        var datagram = sent
        try clientSRTP.protect(rtp: &datagram)
        let storage = datagram.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }

        // The caller's output already holds an event: the peer appends to it, in its storage.
        var output = MediaPeerOutput()
        output.events.reserveCapacity(4)
        output.events.append(.rtcp([0xEE]))
        let events = output.events.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        harness.server.receive(&datagram, from: PeerHarness.clientAddress, now: harness.now, into: &output)
        #expect(datagram == sent, "the caller's array does not hold the decrypted packet")
        #expect(output.events.count == 2 && output.events.first == .rtcp([0xEE]), "the peer did not append to the caller's events")
        #expect(output.events.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } == events, "the events took new storage")
        guard case .rtp(let packet) = try #require(output.events.last) else {
            Issue.record("no RTP event: \(output.events)")
            return
        }
        #expect(packet == sent)
        #expect(packet.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } == storage, "the event's packet is a copy")
        #expect(output.datagrams.isEmpty)

        // The same output again, emptied as the peer table does: the next datagram is appended.
        output.events.removeAll(keepingCapacity: true)
        var next = SRTPTestPackets.rtp(sequence: 8, ssrc: 0x1111_2222, payloadLength: 160)
        try clientSRTP.protect(rtp: &next)
        harness.server.receive(&next, from: PeerHarness.clientAddress, now: harness.now, into: &output)
        #expect(output.events == [.rtp(SRTPTestPackets.rtp(sequence: 8, ssrc: 0x1111_2222, payloadLength: 160))])
        #expect(harness.server.counters == MediaPeerCounters())
    }

    /// RFC 7675: once connected, a peer that sends no binding request on the selected pair
    /// for the consent timeout is closed; one that keeps checking stays.
    @Test func consentIsLostWithoutChecksAndKeptWithThem() throws {
        var kept = try PeerHarness(consentTimeout: .seconds(10))
        kept.connect()
        kept.advance(to: .seconds(60))
        #expect(kept.server.state == .connected(PeerHarness.clientAddress), "the client checks every 5 s")

        var lost = try PeerHarness(consentTimeout: .seconds(10))
        lost.connect()
        lost.advance(to: .milliseconds(9_999), clientKeepsConsent: false)
        #expect(lost.server.state == .connected(PeerHarness.clientAddress))
        #expect(lost.server.nextDeadline == .seconds(10))
        lost.advance(to: .seconds(10), clientKeepsConsent: false)
        #expect(lost.server.state == .closed(.consentLost))
        #expect(lost.serverClosed == .consentLost)
        // The close_notify told the client's DTLS at once.
        #expect(lost.clientDTLSEvents.contains(.failed(.closed(reason: "close_notify"))))
        #expect(lost.server.protect(rtp: SRTPTestPackets.rtp(sequence: 1)) == nil)
    }

    @Test func closingSendsCloseNotifyAndEndsThePeer() throws {
        var harness = try PeerHarness()
        harness.connect()
        let output = harness.server.close(now: harness.now)
        #expect(output.events == [.closed(.closedByUs)])
        #expect(!output.datagrams.isEmpty)
        _ = harness.toClient(output.datagrams)
        #expect(harness.clientDTLSEvents.contains(.failed(.closed(reason: "close_notify"))))
        #expect(harness.server.nextDeadline == nil)
        #expect(harness.server.close(now: harness.now).events.isEmpty, "closing twice reports once")
        _ = harness.server.receive(SRTPTestPackets.rtp(sequence: 1), from: PeerHarness.clientAddress, now: harness.now)
        #expect(harness.server.counters.afterClose == 1)
    }

    /// The forwarding path's in-place protect uses the outbound context the peer keeps beside
    /// its SRTP session: keyed as the session is (the client opens what it makes), and gone
    /// with it (nothing is protected once the peer closed, and each refusal is counted).
    @Test func theInPlacePathProtectsWithTheSessionsKeysAndNothingAfterClose() throws {
        var harness = try PeerHarness()
        let packet = SRTPTestPackets.rtp(sequence: 3, ssrc: 0x5555_6666, payloadLength: 120)
        let tagLength = SRTPProfile.aeadAES128GCM.tagLength
        func protectInPlace() -> [UInt8]? {
            var buffer = packet + [UInt8](repeating: 0, count: tagLength)
            let result = buffer.withUnsafeMutableBytes { harness.server.protect(rtp: $0, length: packet.count) }
            return result.map { Array(buffer[..<$0.length]) }
        }
        #expect(protectInPlace() == nil, "not connected yet")
        #expect(harness.server.counters.protectFailures == 1)

        harness.connect()
        var opened = try #require(protectInPlace())
        try #require(harness.clientSRTP).unprotect(srtp: &opened)
        #expect(opened == packet)

        _ = harness.server.close(now: harness.now)
        #expect(protectInPlace() == nil)
        #expect(harness.server.counters.protectFailures == 2)
    }

    @Test func aWrongCertificateFailsDTLS() throws {
        let stranger = try DTLSCertificate.generate(commonName: "stranger")
        var harness = try PeerHarness(serverExpects: stranger.fingerprint)
        harness.connect()
        guard case .closed(.dtlsFailed(.fingerprintMismatch)) = harness.server.state else {
            Issue.record("expected a fingerprint mismatch, got \(harness.server.state)")
            return
        }
        #expect(!harness.serverEvents.contains { if case .connected = $0 { true } else { false } })
    }

    @Test func aPeerThatNeverConnectsIsGivenUp() throws {
        var harness = try PeerHarness()
        #expect(harness.server.nextDeadline == .seconds(30))
        harness.advance(to: .seconds(31), clientKeepsConsent: false)
        #expect(harness.server.state == .closed(.setupTimedOut))
    }

    /// Random bytes, forgeries, replays, media before keys or from an unchecked address:
    /// each is dropped, counted under its reason, and changes nothing.
    @Test func unusableDatagramsAreDroppedAndCounted() throws {
        var harness = try PeerHarness()
        let stranger = TransportAddress(ip: IPAddress("127.0.0.1")!, port: 40_001)
        var early = SRTPTestPackets.rtp(sequence: 1)
        harness.toServer([early])
        #expect(harness.server.counters.mediaBeforeKeys == 1)
        harness.toServer([[20, 254, 253, 0, 0]], from: stranger)
        #expect(harness.server.counters.dtlsWithoutConsent == 1)

        harness.connect()
        let clientSRTP = try #require(harness.clientSRTP)
        harness.toServer([[0xFF, 1, 2, 3], []])
        #expect(harness.server.counters.malformed == 2)
        harness.toServer([[0, 1, 0, 0] + [UInt8](repeating: 0, count: 16)])
        #expect(harness.server.counters.stunRefused == 1)

        early = SRTPTestPackets.rtp(sequence: 2)
        try clientSRTP.protect(rtp: &early)
        var forged = early
        forged[forged.count - 1] ^= 1
        harness.toServer([forged])
        #expect(harness.server.counters.authenticationFailures == 1)
        harness.toServer([early, early])
        #expect(harness.server.counters.replays == 1)
        #expect(harness.serverRTP.count == 1)
        // From an address without consent, a replayed packet and a forged one are dropped (only
        // the peer's own fresh media may move the path: see the next test).
        harness.toServer([early, forged], from: stranger)
        #expect(harness.server.counters.mediaWithoutConsent == 2)
        #expect(harness.server.counters.droppedInbound == 9)
        #expect(harness.server.state == .connected(PeerHarness.clientAddress))
    }

    /// A NAT rebinding: the peer's socket now reaches the server from another port. Its first
    /// fresh, authenticated packet from there moves the path (media goes there at once); a
    /// replay of an earlier packet from a third address does not move it back.
    @Test func thePeersOwnFreshMediaMovesThePath() throws {
        var harness = try PeerHarness()
        harness.connect()
        let clientSRTP = try #require(harness.clientSRTP)
        let rebound = TransportAddress(ip: IPAddress("127.0.0.1")!, port: 40_002)
        var first = SRTPTestPackets.rtp(sequence: 1)
        try clientSRTP.protect(rtp: &first)
        harness.toServer([first])
        var second = SRTPTestPackets.rtp(sequence: 2)
        try clientSRTP.protect(rtp: &second)
        harness.toServer([second], from: rebound)
        #expect(harness.server.state == .connected(rebound))
        #expect(harness.server.counters.pathMovesByMedia == 1)
        #expect(harness.serverRTP == [SRTPTestPackets.rtp(sequence: 1), SRTPTestPackets.rtp(sequence: 2)])
        #expect(harness.server.protect(rtp: SRTPTestPackets.rtp(sequence: 9))?.destination == rebound)
        #expect(harness.server.hasConsent(from: rebound, at: harness.now))

        let attacker = TransportAddress(ip: IPAddress("127.0.0.1")!, port: 40_003)
        harness.toServer([first, second], from: attacker)
        #expect(harness.server.state == .connected(rebound))
        #expect(harness.server.counters.mediaWithoutConsent == 2)
        #expect(harness.server.counters.pathMovesByMedia == 1)
    }
}
