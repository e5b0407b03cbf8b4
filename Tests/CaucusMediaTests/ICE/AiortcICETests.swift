import CaucusMedia
import CaucusMediaTestSupport
import Foundation
import Testing

/// aiortc, a full ICE agent nobody here wrote, runs its checks against the ICE-lite agent on
/// a real UDP port and must reach "completed" (it nominates the pair).
@Suite struct AiortcICETests {
    @Test func aiortcCompletesICEAgainstTheLiteAgent() throws {
        let socket = try LoopbackUDPSocket(receiveTimeoutMilliseconds: 100)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", OfferFixtures.directory.appendingPathComponent("aiortc_ice_check.py").path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var reader = PipeLineReader(handle: output.fileHandleForReading)
        var offerText = ""
        while let line = reader.next(), line != "--end--" { offerText += line + "\n" }
        let offer = try SessionDescription(parsing: offerText)
        let credentials = ICECredentials.random()
        var options = SDPAnswerTests.options
        options.iceUfrag = credentials.ufrag
        options.icePwd = credentials.pwd
        options.candidate = TransportAddress(ip: IPAddress("127.0.0.1")!, port: socket.port)
        let answer = try SDPAnswer(answering: offer, options: options)
        var agent = ICELiteAgent(local: credentials, remoteUfrag: answer.remoteICEUfrag)
        input.fileHandleForWriting.write(Data((answer.text + "--end--\n").utf8))

        let clock = ContinuousClock()
        let start = clock.now
        var answered = 0
        var selected: [TransportAddress] = []
        while process.isRunning {
            guard let (datagram, source) = socket.receive(), DatagramKind(classifying: datagram) == .stun else { continue }
            let result = agent.receive(datagram, from: source, at: clock.now - start)
            if let response = result.response {
                socket.send(response, to: source)
                answered += 1
            }
            if case .selected(let address) = result.event { selected.append(address) }
        }
        let verdict = reader.next() ?? ""
        #expect(verdict == #"{"ice": "completed"}"#)
        #expect(answered >= 1)
        #expect(selected.count == 1)
        if case .connected(let address) = agent.state {
            #expect(selected == [address])
            #expect(agent.hasConsent(from: address, at: clock.now - start))
        } else {
            Issue.record("no pair was nominated: \(agent.state)")
        }
    }
}
