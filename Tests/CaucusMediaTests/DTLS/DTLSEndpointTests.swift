import CaucusMedia
import Testing

/// Client and server endpoints in memory: keys, profiles, fingerprints, retransmission.
@Suite struct DTLSEndpointTests {
    @Test func bothSidesExportTheSameKeysAndPreferGCM() throws {
        var pair = try DTLSPair()
        pair.run()
        let client = try #require(DTLSPair.keys(pair.clientEvents))
        let server = try #require(DTLSPair.keys(pair.serverEvents))
        #expect(client.profile == .aeadAES128GCM)
        #expect(client.local == server.remote)
        #expect(client.remote == server.local)
        #expect(client.local != client.remote)
        #expect(client.local.fits(.aeadAES128GCM))
        #expect(client.exportedKeyingMaterial(isClient: true) == server.exportedKeyingMaterial(isClient: false))
        #expect(client.peerFingerprint == pair.server.certificate.fingerprint)
        #expect(server.peerFingerprint == pair.client.certificate.fingerprint)
        #expect(pair.client.state == .connected && pair.server.state == .connected)
        #expect(pair.clientEvents.count == 1 && pair.serverEvents.count == 1)
    }

    @Test(arguments: SRTPProfile.allCases)
    func eachProfileCanBeNegotiated(profile: SRTPProfile) throws {
        var pair = try DTLSPair(clientProfiles: [profile])
        pair.run()
        let client = try #require(DTLSPair.keys(pair.clientEvents))
        let server = try #require(DTLSPair.keys(pair.serverEvents))
        #expect(client.profile == profile && server.profile == profile)
        #expect(client.local == server.remote && client.remote == server.local)
        #expect(client.local.fits(profile) && client.remote.fits(profile))
    }

    @Test func theServersPreferenceWins() throws {
        var pair = try DTLSPair(
            clientProfiles: [.aeadAES128GCM, .aesCM128HMACSHA1_80],
            serverProfiles: [.aesCM128HMACSHA1_80, .aeadAES128GCM])
        pair.run()
        #expect(DTLSPair.keys(pair.serverEvents)?.profile == .aesCM128HMACSHA1_80)
        #expect(DTLSPair.keys(pair.clientEvents)?.profile == .aesCM128HMACSHA1_80)
    }

    @Test func noCommonProfileFails() throws {
        var pair = try DTLSPair(clientProfiles: [.aeadAES128GCM], serverProfiles: [.aesCM128HMACSHA1_80])
        pair.run()
        #expect(DTLSPair.keys(pair.clientEvents) == nil)
        #expect(DTLSPair.keys(pair.serverEvents) == nil)
        #expect(pair.client.state == .failed)
    }

    @Test func aClientWithTheWrongFingerprintIsRefused() throws {
        let stranger = try DTLSCertificate.generate(commonName: "stranger").fingerprint
        var pair = try DTLSPair(serverExpects: stranger)
        pair.run()
        guard case .fingerprintMismatch(let announced, let presented) = DTLSPair.failure(pair.serverEvents) else {
            Issue.record("server events: \(pair.serverEvents)")
            return
        }
        #expect(announced == stranger)
        #expect(presented == pair.client.certificate.fingerprint)
        #expect(pair.server.state == .failed)
        // The alert reaches the client, which gets no keys either.
        #expect(pair.client.state == .failed)
        #expect(DTLSPair.keys(pair.clientEvents) == nil)
    }

    @Test func aServerWithTheWrongFingerprintIsRefused() throws {
        let stranger = try DTLSCertificate.generate(commonName: "stranger").fingerprint
        var pair = try DTLSPair(clientExpects: stranger)
        pair.run()
        guard case .fingerprintMismatch(_, let presented) = DTLSPair.failure(pair.clientEvents) else {
            Issue.record("client events: \(pair.clientEvents)")
            return
        }
        #expect(presented == pair.server.certificate.fingerprint)
        #expect(DTLSPair.keys(pair.serverEvents) == nil)
    }

    /// Every first transmission of every flight is lost; the timers on the simulated clock
    /// bring the handshake through anyway, and no deadline is left once connected.
    @Test func lostFlightsAreRetransmittedOnTheCallersClock() throws {
        let pair = try DTLSPair()
        let firstClientDeadline = try #require(
            { () -> Duration? in
                _ = pair.client.start(now: .zero)
                return pair.client.nextDeadline
            }())
        #expect(firstClientDeadline > .zero)
        // Before the deadline nothing is resent.
        #expect(pair.client.handleTimeout(now: firstClientDeadline / 2).datagrams.isEmpty)
        #expect(pair.client.handleTimeout(now: firstClientDeadline).datagrams.count >= 1)

        var lossy = try DTLSPair()
        // Lose each side's first datagram and its third.
        lossy.run(lose: { _, number in number == 0 || number == 2 })
        #expect(DTLSPair.keys(lossy.clientEvents) != nil)
        #expect(DTLSPair.keys(lossy.serverEvents) != nil)
        #expect(lossy.now > .zero, "the handshake needed the timers")
        #expect(lossy.client.nextDeadline == nil)
    }

    /// The server's final flight (ChangeCipherSpec, Finished) is lost after the server has
    /// connected: the client's timer resends its own flight, and the connected server must
    /// answer it with its final flight again, or the client never connects.
    @Test func aConnectedServerResendsItsFinalFlight() throws {
        var pair = try DTLSPair()
        let server = pair.server
        var lostAfterConnecting = 0
        pair.run(lose: { fromClient, _ in
            guard !fromClient, server.state == .connected, lostAfterConnecting == 0 else { return false }
            lostAfterConnecting += 1
            return true
        })
        #expect(lostAfterConnecting == 1)
        #expect(DTLSPair.keys(pair.clientEvents) != nil)
        #expect(pair.serverEvents.count == 1, "one connected event, no failure: \(pair.serverEvents)")
        #expect(pair.now > .zero, "the client's timer did the work")
    }

    @Test func fingerprintsReadAndWriteSDP() throws {
        let certificate = try DTLSCertificate.generate()
        let value = certificate.fingerprint.sdpValue
        #expect(value.hasPrefix("sha-256 "))
        #expect(value.count == "sha-256 ".count + 32 * 3 - 1)
        #expect(DTLSFingerprint(sdpValue: value) == certificate.fingerprint)
        #expect(DTLSFingerprint(sdpValue: "SHA-256 " + value.dropFirst(8).lowercased()) == certificate.fingerprint)
        #expect(DTLSFingerprint(sdpValue: "sha-1 AB:CD") == nil)
        #expect(DTLSFingerprint(sdpValue: "sha-256 AB:CD") == nil)
        #expect(DTLSFingerprint(sdpValue: "sha-256 " + String(value.dropFirst(8).filter { $0 != ":" })) == nil)
        #expect(certificate.pem.hasPrefix("-----BEGIN CERTIFICATE-----"))
    }
}
