import CaucusMedia
import PropertyBased
import Testing

/// Whatever arrives, an endpoint returns events, never traps; garbage before a real
/// handshake does not stop that handshake.
@Suite struct DTLSPropertyTests {
    @Test(.shrinking(false))
    func randomDatagramsNeitherTrapNorBlockAHandshake() async throws {
        let datagrams = Gen.uint8().array(of: 0...400).array(of: 1...20)
        await propertyCheck(count: 50, input: datagrams, Gen.bool) { garbage, looksLikeDTLS in
            var pair = try DTLSPair()
            for var datagram in garbage {
                // Half the time a DTLS 1.2 handshake record header, so the bytes go deeper.
                if looksLikeDTLS, datagram.count >= 13 { datagram.replaceSubrange(0..<3, with: [22, 0xFE, 0xFD]) }
                let output = pair.server.receive(datagram, now: .zero)
                #expect(output.events.allSatisfy { if case .connected = $0 { false } else { true } })
            }
            if pair.server.state == .handshaking {
                pair.run()
                #expect(DTLSPair.keys(pair.serverEvents) != nil)
                #expect(DTLSPair.keys(pair.clientEvents) != nil)
            } else {
                #expect(pair.server.state == .failed)
            }
        }
    }

    /// After the handshake, garbage and truncated records are dropped or end the
    /// association with an event; neither side traps.
    @Test(.shrinking(false))
    func garbageAfterTheHandshake() async throws {
        await propertyCheck(count: 30, input: Gen.uint8().array(of: 0...300), Gen.int(in: 13...120)) { bytes, cut in
            var pair = try DTLSPair()
            pair.run()
            #expect(pair.server.state == .connected)
            var record = [UInt8]([23, 0xFE, 0xFD, 0, 1]) + bytes
            _ = pair.server.receive(record, now: pair.now)
            record = Array(record.prefix(cut))
            let output = pair.client.receive(record, now: pair.now)
            #expect(output.events.allSatisfy { if case .failed = $0 { true } else { false } })
        }
    }
}
