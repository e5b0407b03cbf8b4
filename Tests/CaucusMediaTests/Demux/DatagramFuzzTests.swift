@testable import CaucusMedia
import Testing

/// 30,000 datagrams through the demultiplexer and the parser it picks, and STUN ones through
/// the ICE-lite agent too: random bytes, and real packets with bytes flipped or cut short.
/// Nothing traps, and nothing unauthenticated gets the agent to nominate or grant consent.
@Suite struct DatagramFuzzTests {
    static let templates: [[UInt8]] = [
        RFC5769.request, RFC5769.responseIPv4, RFC5769.responseIPv6,
        RTPPacketTests.opus, RTPPacketTests.padded,
        RTCPPacketTests.senderReport + RTCPPacketTests.receiverReport + RTCPPacketTests.remb,
        RTCPPacketTests.nack + RTCPPacketTests.fir + RTCPPacketTests.bye,
        [0x16, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10],
    ]

    @Test func thirtyThousandDatagramsNeverTrap() {
        var random = SplitMix(seed: 0xCA0C_05)
        var agent = ICELiteAgent(local: ICECredentials(ufrag: "evtj", pwd: "VOkJxbRl1RmTxUk/WvJxBt"), remoteUfrag: "h6vY")
        let source = TransportAddress(ip: .v4(0x0A00_0001), port: 5000)
        var kinds: [DatagramKind: Int] = [:]
        var decoded = 0
        for index in 0..<30_000 {
            var datagram: [UInt8]
            if index % 2 == 0 {
                datagram = random.bytes(0...200)
            } else {
                datagram = Self.templates[Int.random(in: 0..<Self.templates.count, using: &random)]
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    datagram[Int.random(in: 0..<datagram.count, using: &random)] = .random(in: 0...255, using: &random)
                }
                if Bool.random(using: &random) { datagram = Array(datagram.prefix(Int.random(in: 0...datagram.count, using: &random))) }
            }
            let kind = DatagramKind(classifying: datagram)
            kinds[kind, default: 0] += 1
            switch kind {
            case .stun:
                if (try? DecodedSTUNMessage(decoding: datagram)) != nil { decoded += 1 }
                let output = agent.receive(datagram, from: source, at: .seconds(1))
                #expect(output.event == nil)
            case .rtp:
                if (try? RTPPacket(decoding: datagram)) != nil { decoded += 1 }
                _ = RTPHeaderFields.extensionElement(id: 1, in: datagram)
            case .rtcp:
                if (try? RTCPPacket.decodeCompound(datagram)) != nil { decoded += 1 }
            case .dtls, .unknown:
                break
            }
        }
        #expect(agent.state == .checking)
        #expect(!agent.hasConsent(from: source, at: .seconds(1)))
        // The mix reached every parser, and some of what it fed them was still valid.
        #expect(kinds[.stun, default: 0] > 300)
        #expect(kinds[.rtp, default: 0] > 300)
        #expect(kinds[.rtcp, default: 0] > 300)
        #expect(decoded > 300)
    }
}
