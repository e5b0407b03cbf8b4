@testable import CaucusMedia
import Testing

/// The client role against the server role, in memory, with time as an input.
@Suite struct ICERolesTests {
    let serverCredentials = ICECredentials.random()
    let clientCredentials = ICECredentials.random()
    let serverAddress = TransportAddress(ip: IPAddress("10.0.0.1")!, port: 40000)
    let clientAddress = TransportAddress(ip: IPAddress("10.0.0.2")!, port: 51000)

    func agents() -> (ICELiteAgent, ICEControllingAgent) {
        (ICELiteAgent(local: serverCredentials, remoteUfrag: clientCredentials.ufrag),
         ICEControllingAgent(local: clientCredentials, remote: serverCredentials, remoteAddress: serverAddress, tieBreaker: 7))
    }

    @Test func theClientConnectsAndNominatesOnItsFirstCheck() throws {
        var (server, client) = agents()
        let first = client.start(at: .zero)
        let check = try #require(first)
        #expect(client.state == .checking)
        let output = server.receive(check, from: clientAddress, at: .milliseconds(5))
        #expect(output.event == .selected(clientAddress))
        client.receive(try #require(output.response), from: serverAddress, at: .milliseconds(10))
        #expect(client.state == .connected)
        #expect(client.mappedAddress == clientAddress)
    }

    @Test func lostChecksAreRetransmittedOnScheduleThenGiveUp() throws {
        var (_, client) = agents()
        _ = client.start(at: .zero)
        var sendTimes: [Duration] = [.zero]
        var now = Duration.zero
        while client.state == .checking, let deadline = client.nextDeadline {
            #expect(client.tick(at: deadline - .milliseconds(1)) == nil)
            now = deadline
            if client.tick(at: now) != nil { sendTimes.append(now) }
        }
        #expect(sendTimes == [0, 500, 1500, 3500, 7500, 15500, 31500].map { Duration.milliseconds($0) })
        #expect(client.state == .failed(.timedOut))
        #expect(now == .milliseconds(39500))
    }

    @Test func aRetransmissionThatGetsThroughConnects() throws {
        var (server, client) = agents()
        _ = client.start(at: .zero)  // lost
        let second = client.tick(at: .milliseconds(500))
        let retransmission = try #require(second)
        let output = server.receive(retransmission, from: clientAddress, at: .milliseconds(501))
        client.receive(try #require(output.response), from: serverAddress, at: .milliseconds(502))
        #expect(client.state == .connected)
    }

    @Test func responsesFromElsewhereOrWithTheWrongKeyAreIgnored() throws {
        var (server, client) = agents()
        let first = client.start(at: .zero)
        let check = try #require(first)
        let answer = server.receive(check, from: clientAddress, at: .zero).response
        let response = try #require(answer)
        client.receive(response, from: TransportAddress(ip: IPAddress("10.0.0.9")!, port: 40000), at: .zero)
        #expect(client.state == .checking)
        var impostor = ICELiteAgent(local: ICECredentials(ufrag: serverCredentials.ufrag, pwd: "another-password-entirely"), remoteUfrag: clientCredentials.ufrag)
        // A server that cannot authenticate the check answers 401, unsigned; that ends checking.
        let refusal = impostor.receive(check, from: clientAddress, at: .zero).response
        let refused = try #require(refusal)
        client.receive(refused, from: serverAddress, at: .zero)
        #expect(client.state == .failed(.rejected(code: 401)))
    }

    @Test func consentIsKeptByPeriodicChecksAndLostWithoutAnswers() throws {
        var (server, client) = agents()
        let first = client.start(at: .zero)
        let check = try #require(first)
        let answer = server.receive(check, from: clientAddress, at: .zero).response
        client.receive(try #require(answer), from: serverAddress, at: .zero)
        var now = Duration.zero
        // Two minutes of answered consent checks keep both sides up.
        while now < .seconds(120) {
            now = try #require(client.nextDeadline)
            let tick = client.tick(at: now)
            let consent = try #require(tick)
            let output = server.receive(consent, from: clientAddress, at: now)
            client.receive(try #require(output.response), from: serverAddress, at: now)
            #expect(server.checkConsent(at: now) == nil)
        }
        #expect(client.state == .connected)
        // Then the server stops answering: the client gives up after 30 s, the server too.
        let lastAnswer = now
        while client.state == .connected, let deadline = client.nextDeadline {
            now = deadline
            _ = client.tick(at: now)
        }
        #expect(client.state == .failed(.consentLost))
        #expect(now - lastAnswer == .seconds(30))
        #expect(server.checkConsent(at: lastAnswer + .seconds(30)) == .consentExpired)
    }
}
