@testable import CaucusMedia
import Testing

@Suite struct ICELiteAgentTests {
    /// RFC 5769's request names "evtj:h6vY" and is keyed with this password: the server is
    /// "evtj" with that password, the peer "h6vY".
    let server = ICECredentials(ufrag: "evtj", pwd: "VOkJxbRl1RmTxUk/WvJxBt")
    let peer = TransportAddress(ip: IPAddress("192.0.2.1")!, port: 32853)
    let transactionID = STUNTransactionID(bytes: RFC5769.transactionID)!

    func check(_ attributes: [STUNAttribute], key: [UInt8]? = Array("VOkJxbRl1RmTxUk/WvJxBt".utf8), fingerprint: Bool = true) -> [UInt8] {
        STUNMessage(type: .bindingRequest, transactionID: transactionID, attributes: attributes)
            .encoded(integrityKey: key, fingerprint: fingerprint)
    }

    @Test func theRFC5769RequestIsAuthenticatedAndGetsRoleConflict() throws {
        var agent = ICELiteAgent(local: server, remoteUfrag: "h6vY")
        // The sample request says ICE-CONTROLLED, which a full agent must not say to a lite one.
        let output = agent.receive(RFC5769.request, from: peer, at: .zero)
        #expect(output.refusal == .roleConflict)
        let response = try DecodedSTUNMessage(decoding: try #require(output.response))
        #expect(response.message.type == .bindingError)
        #expect(response.message.errorCode?.code == 487)
        #expect(response.message.transactionID == transactionID)
        #expect(response.hasValidIntegrity(key: RFC5769.password))
        #expect(response.hasValidFingerprint)
        #expect(!agent.hasConsent(from: peer, at: .zero))
    }

    @Test func aControllingCheckWithUseCandidateIsAnsweredAndNominates() throws {
        var agent = ICELiteAgent(local: server, remoteUfrag: "h6vY")
        let request = check([.software("STUN test client"), .priority(0x6E00_01FF), .iceControlling(tieBreaker: 0x932F_F9B1_5126_3B36), .useCandidate, .username("evtj:h6vY")])
        let output = agent.receive(request, from: peer, at: .seconds(1))
        #expect(output.event == .selected(peer))
        #expect(agent.state == .connected(peer))
        let response = try DecodedSTUNMessage(decoding: try #require(output.response))
        #expect(response.message.type == .bindingSuccess)
        #expect(response.message.transactionID == transactionID)
        #expect(response.message.xorMappedAddress == peer)
        #expect(response.hasValidIntegrity(key: RFC5769.password))
        #expect(response.hasValidFingerprint)
        #expect(agent.hasConsent(from: peer, at: .seconds(30)))
        // The same nomination again is no news.
        #expect(agent.receive(request, from: peer, at: .seconds(2)).event == nil)
    }

    @Test func aCheckWithoutUseCandidateValidatesButDoesNotNominate() {
        var agent = ICELiteAgent(local: server, remoteUfrag: "h6vY")
        let output = agent.receive(check([.iceControlling(tieBreaker: 1), .username("evtj:h6vY")]), from: peer, at: .zero)
        #expect(output.response != nil)
        #expect(output.event == nil)
        #expect(agent.state == .checking)
        #expect(agent.hasConsent(from: peer, at: .seconds(1)))
    }

    @Test func badCredentialsGetErrorsAndChangeNothing() throws {
        var agent = ICELiteAgent(local: server, remoteUfrag: "h6vY")
        let cases: [([UInt8], ICELiteAgent.Refusal, Int?)] = [
            (check([.username("evtj:h6vY"), .useCandidate], key: Array("wrong-password-wrong-pw".utf8)), .wrongIntegrity, 401),
            (check([.username("evtj:other"), .useCandidate]), .wrongUsername, 401),
            (check([.username("xxxx:h6vY"), .useCandidate]), .wrongUsername, 401),
            (check([.useCandidate]), .missingCredentials, 400),
            (check([.username("evtj:h6vY"), .useCandidate], key: nil), .missingCredentials, 400),
            (check([.username("evtj:h6vY"), .useCandidate], fingerprint: false), .badFingerprint, nil),
            ([0x80, 0x60] + Array(repeating: 0, count: 30), .notSTUN, nil),
        ]
        for (datagram, refusal, code) in cases {
            let output = agent.receive(datagram, from: peer, at: .zero)
            #expect(output.refusal == refusal)
            #expect(output.event == nil)
            if let code {
                let response = try DecodedSTUNMessage(decoding: try #require(output.response))
                #expect(response.message.errorCode?.code == code)
                #expect(response.hasValidFingerprint)
            } else {
                #expect(output.response == nil)
            }
        }
        #expect(agent.state == .checking)
        #expect(!agent.hasConsent(from: peer, at: .zero))
    }

    @Test func consentLapsesAfterThirtySecondsWithoutAValidCheck() {
        var agent = ICELiteAgent(local: server, remoteUfrag: "h6vY")
        let request = check([.iceControlling(tieBreaker: 1), .useCandidate, .username("evtj:h6vY")])
        _ = agent.receive(request, from: peer, at: .seconds(10))
        #expect(agent.checkConsent(at: .seconds(35)) == nil)
        _ = agent.receive(request, from: peer, at: .seconds(35))
        #expect(agent.checkConsent(at: .seconds(64)) == nil)
        #expect(agent.hasConsent(from: peer, at: .seconds(64)))
        #expect(agent.checkConsent(at: .seconds(65)) == .consentExpired)
        #expect(agent.state == .disconnected)
        #expect(!agent.hasConsent(from: peer, at: .seconds(65)))
        // A dropped peer stays dropped: a late check is not answered.
        let late = agent.receive(request, from: peer, at: .seconds(66))
        #expect(late.response == nil)
        #expect(late.refusal == .peerDropped)
    }

    @Test func aNewNominationFollowsTheClientsNewAddress() {
        var agent = ICELiteAgent(local: server, remoteUfrag: "h6vY")
        let request = check([.iceControlling(tieBreaker: 1), .useCandidate, .username("evtj:h6vY")])
        let moved = TransportAddress(ip: IPAddress("2001:db8::7")!, port: 5000)
        _ = agent.receive(request, from: peer, at: .zero)
        #expect(agent.receive(request, from: moved, at: .seconds(1)).event == .selected(moved))
        #expect(agent.state == .connected(moved))
        // The old address's consent runs out without ending the session.
        #expect(agent.checkConsent(at: .seconds(30)) == nil)
        #expect(!agent.hasConsent(from: peer, at: .seconds(30)))
        #expect(agent.hasConsent(from: moved, at: .seconds(30)))
    }
}
