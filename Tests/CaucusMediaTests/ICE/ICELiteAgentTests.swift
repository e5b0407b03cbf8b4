@testable import CaucusMedia
import Testing

@Suite struct ICELiteAgentTests {
    /// RFC 5769's request names "evtj:h6vY" and is keyed with this password: the server is
    /// "evtj" with that password, the peer "h6vY".
    let server = ICECredentials(ufrag: "evtj", pwd: "VOkJxbRl1RmTxUk/WvJxBt")
    let peer = TransportAddress(ip: IPAddress("192.0.2.1")!, port: 32853)
    let transactionID = STUNTransactionID(bytes: RFC5769.transactionID)!

    func check(
        _ attributes: [STUNAttribute], key: [UInt8]? = Array("VOkJxbRl1RmTxUk/WvJxBt".utf8), fingerprint: Bool = true,
        transaction: UInt8? = nil
    ) -> [UInt8] {
        // A full agent's every new check has a fresh transaction ID; `transaction` makes one.
        let id = transaction.map { STUNTransactionID(bytes: Array(repeating: $0, count: 12))! } ?? transactionID
        return STUNMessage(type: .bindingRequest, transactionID: id, attributes: attributes)
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
        let request = { (transaction: UInt8) in self.check([.iceControlling(tieBreaker: 1), .useCandidate, .username("evtj:h6vY")], transaction: transaction) }
        _ = agent.receive(request(1), from: peer, at: .seconds(10))
        #expect(agent.checkConsent(at: .seconds(35)) == nil)
        _ = agent.receive(request(2), from: peer, at: .seconds(35))
        #expect(agent.checkConsent(at: .seconds(64)) == nil)
        #expect(agent.hasConsent(from: peer, at: .seconds(64)))
        #expect(agent.checkConsent(at: .seconds(65)) == .consentExpired)
        #expect(agent.state == .disconnected)
        #expect(!agent.hasConsent(from: peer, at: .seconds(65)))
        // A dropped peer stays dropped: a late check is not answered.
        let late = agent.receive(request(3), from: peer, at: .seconds(66))
        #expect(late.response == nil)
        #expect(late.refusal == .peerDropped)
    }

    @Test func aNewNominationFollowsTheClientsNewAddress() {
        var agent = ICELiteAgent(local: server, remoteUfrag: "h6vY")
        let request = { (transaction: UInt8) in self.check([.iceControlling(tieBreaker: 1), .useCandidate, .username("evtj:h6vY")], transaction: transaction) }
        let moved = TransportAddress(ip: IPAddress("2001:db8::7")!, port: 5000)
        _ = agent.receive(request(1), from: peer, at: .zero)
        #expect(agent.receive(request(2), from: moved, at: .seconds(1)).event == .selected(moved))
        #expect(agent.state == .connected(moved))
        // The old address's consent runs out without ending the session.
        #expect(agent.checkConsent(at: .seconds(30)) == nil)
        #expect(!agent.hasConsent(from: peer, at: .seconds(30)))
        #expect(agent.hasConsent(from: moved, at: .seconds(30)))
    }

    /// A captured nominating check sent again from another address is a replay: unanswered,
    /// and neither the path nor consent changes. Sent again from its own address it is a STUN
    /// retransmission: answered again, and nothing else.
    @Test func aReplayedCheckMovesNothing() throws {
        var agent = ICELiteAgent(local: server, remoteUfrag: "h6vY")
        let captured = check([.iceControlling(tieBreaker: 1), .useCandidate, .username("evtj:h6vY")], transaction: 1)
        let attacker = TransportAddress(ip: IPAddress("203.0.113.9")!, port: 4444)
        #expect(agent.receive(captured, from: peer, at: .zero).event == .selected(peer))

        let replay = agent.receive(captured, from: attacker, at: .seconds(1))
        #expect(replay.refusal == .replayed)
        #expect(replay.response == nil && replay.event == nil)
        #expect(agent.state == .connected(peer))
        #expect(!agent.hasConsent(from: attacker, at: .seconds(1)))

        let retransmission = agent.receive(captured, from: peer, at: .seconds(20))
        #expect(retransmission.refusal == .retransmitted)
        let response = try DecodedSTUNMessage(decoding: try #require(retransmission.response))
        #expect(response.message.type == .bindingSuccess && response.message.xorMappedAddress == peer)
        #expect(agent.checkConsent(at: .seconds(30)) == .consentExpired, "a retransmission refreshes no consent")
    }

    /// Fresh checks are remembered up to the limit, the oldest forgotten first.
    @Test func acceptedTransactionsAreBounded() {
        var agent = ICELiteAgent(local: server, remoteUfrag: "h6vY")
        let attacker = TransportAddress(ip: IPAddress("203.0.113.9")!, port: 4444)
        func fresh(_ n: Int) -> [UInt8] {
            let id = STUNTransactionID(bytes: withUnsafeBytes(of: UInt64(n).bigEndian, Array.init) + [0, 0, 0, 1])!
            return STUNMessage(type: .bindingRequest, transactionID: id, attributes: [.iceControlling(tieBreaker: 1), .username("evtj:h6vY")])
                .encoded(integrityKey: Array("VOkJxbRl1RmTxUk/WvJxBt".utf8), fingerprint: true)
        }
        for n in 0...ICELiteAgent.rememberedTransactions { _ = agent.receive(fresh(n), from: peer, at: .zero) }
        #expect(agent.receive(fresh(ICELiteAgent.rememberedTransactions), from: attacker, at: .zero).refusal == .replayed)
        #expect(agent.receive(fresh(0), from: attacker, at: .zero).refusal == nil, "forgotten: the oldest of 1,025")
    }

    /// The peer's own authenticated media from a new address (checked by the caller) moves the
    /// path and gives that address consent; before nomination it does nothing.
    @Test func adoptingAnAddressMovesTheSelectedPair() {
        var agent = ICELiteAgent(local: server, remoteUfrag: "h6vY")
        let rebound = TransportAddress(ip: IPAddress("192.0.2.1")!, port: 40_001)
        #expect(agent.adopt(rebound, at: .zero) == nil)
        #expect(agent.state == .checking)
        _ = agent.receive(check([.iceControlling(tieBreaker: 1), .useCandidate, .username("evtj:h6vY")], transaction: 1), from: peer, at: .zero)
        #expect(agent.adopt(peer, at: .seconds(1)) == nil, "already there")
        #expect(agent.adopt(rebound, at: .seconds(2)) == .selected(rebound))
        #expect(agent.state == .connected(rebound))
        #expect(agent.hasConsent(from: rebound, at: .seconds(31)))
        #expect(agent.checkConsent(at: .seconds(31)) == nil)
    }
}
