@testable import CaucusMedia
import Testing

/// RFC 5769's vectors: decoded, checked, and rebuilt byte for byte.
@Suite struct STUNKnownAnswerTests {
    let transactionID = STUNTransactionID(bytes: RFC5769.transactionID)!

    @Test func decodesTheSampleRequest() throws {
        let decoded = try DecodedSTUNMessage(decoding: RFC5769.request)
        #expect(decoded.message.type == .bindingRequest)
        #expect(decoded.message.transactionID == transactionID)
        #expect(decoded.message.attributes.prefix(4) == [
            .software("STUN test client"), .priority(0x6E00_01FF),
            .iceControlled(tieBreaker: 0x932F_F9B1_5126_3B36), .username("evtj:h6vY"),
        ])
        #expect(decoded.message.username == "evtj:h6vY")
        #expect(decoded.hasValidIntegrity(key: RFC5769.password))
        #expect(decoded.hasValidFingerprint)
        #expect(!decoded.hasValidIntegrity(key: Array("VOkJxbRl1RmTxUk/WvJxBu".utf8)))
    }

    @Test func decodesTheIPv4Response() throws {
        let decoded = try DecodedSTUNMessage(decoding: RFC5769.responseIPv4)
        #expect(decoded.message.type == .bindingSuccess)
        #expect(decoded.message.xorMappedAddress == TransportAddress(ip: IPAddress("192.0.2.1")!, port: 32853))
        #expect(decoded.hasValidIntegrity(key: RFC5769.password))
        #expect(decoded.hasValidFingerprint)
    }

    @Test func decodesTheIPv6Response() throws {
        let decoded = try DecodedSTUNMessage(decoding: RFC5769.responseIPv6)
        let expected = TransportAddress(ip: IPAddress("2001:db8:1234:5678:11:2233:4455:6677")!, port: 32853)
        #expect(decoded.message.xorMappedAddress == expected)
        #expect(expected.description == "[2001:db8:1234:5678:11:2233:4455:6677]:32853")
        #expect(decoded.hasValidIntegrity(key: RFC5769.password))
        #expect(decoded.hasValidFingerprint)
    }

    @Test func rebuildsTheSampleRequest() {
        let message = STUNMessage(type: .bindingRequest, transactionID: transactionID, attributes: [
            .software("STUN test client"), .priority(0x6E00_01FF),
            .iceControlled(tieBreaker: 0x932F_F9B1_5126_3B36), .username("evtj:h6vY"),
        ])
        // RFC 5769 pads with spaces; the bytes, the HMAC and the CRC must all agree.
        let bytes = message.encoded(integrityKey: RFC5769.password, fingerprint: true, paddingByte: 0x20)
        #expect(bytes == RFC5769.request)
    }

    @Test func rebuildsBothResponses() {
        for (vector, ip) in [(RFC5769.responseIPv4, "192.0.2.1"), (RFC5769.responseIPv6, "2001:db8:1234:5678:11:2233:4455:6677")] {
            let message = STUNMessage(type: .bindingSuccess, transactionID: transactionID, attributes: [
                .software("test vector"), .xorMappedAddress(TransportAddress(ip: IPAddress(ip)!, port: 32853)),
            ])
            #expect(message.encoded(integrityKey: RFC5769.password, fingerprint: true, paddingByte: 0x20) == vector)
        }
    }

    @Test func aFlippedBitBreaksIntegrityOrFingerprint() throws {
        // Inside SOFTWARE, PRIORITY and USERNAME: the framing stays intact, the checks must not.
        for index in [30, 46, 66, 70] {
            var tampered = RFC5769.request
            tampered[index] ^= 0x01
            let decoded = try DecodedSTUNMessage(decoding: tampered)
            #expect(!decoded.hasValidIntegrity(key: RFC5769.password))
            #expect(!decoded.hasValidFingerprint)
        }
    }
}
