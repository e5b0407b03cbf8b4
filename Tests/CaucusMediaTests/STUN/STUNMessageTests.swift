@testable import CaucusMedia
import PropertyBased
import Testing

@Suite struct STUNMessageTests {
    let id = STUNTransactionID(bytes: Array(1...12))!

    @Test func messageTypesInterleaveClassBits() {
        #expect(STUNMessageType.bindingRequest.rawValue == 0x0001)
        #expect(STUNMessageType.bindingIndication.rawValue == 0x0011)
        #expect(STUNMessageType.bindingSuccess.rawValue == 0x0101)
        #expect(STUNMessageType.bindingError.rawValue == 0x0111)
        #expect(STUNMessageType(rawValue: 0x0111) == .bindingError)
        #expect(STUNMessageType(rawValue: 0xC001) == nil)
    }

    @Test func errorCodesRoundTrip() throws {
        for error in [STUNErrorCode.roleConflict, .unauthorized, .badRequest] {
            let message = STUNMessage(type: .bindingError, transactionID: id, attributes: [.errorCode(error)])
            let decoded = try DecodedSTUNMessage(decoding: message.encoded(integrityKey: [1, 2, 3], fingerprint: true))
            #expect(decoded.message.errorCode == error)
            #expect(decoded.hasValidIntegrity(key: [1, 2, 3]))
            #expect(decoded.hasValidFingerprint)
        }
        // The error code's class byte is 4 and its number 87.
        let bytes = STUNMessage(type: .bindingError, transactionID: id, attributes: [.errorCode(.roleConflict)]).encoded()
        #expect(Array(bytes[20..<28]) == [0x00, 0x09, 0x00, 0x11, 0x00, 0x00, 0x04, 87])
    }

    @Test func iceAttributesRoundTrip() throws {
        let message = STUNMessage(type: .bindingRequest, transactionID: id, attributes: [
            .username("abcd:efgh"), .priority(1_853_824_767), .useCandidate,
            .iceControlling(tieBreaker: 0x0102_0304_0506_0708), .other(type: 0xC057, value: [0, 1, 0, 0]),
        ])
        let decoded = try DecodedSTUNMessage(decoding: message.encoded(integrityKey: Array("pwd".utf8), fingerprint: true))
        #expect(decoded.message.hasUseCandidate)
        #expect(decoded.message.iceControlling == 0x0102_0304_0506_0708)
        #expect(Array(decoded.message.attributes.prefix(5)) == message.attributes)
        #expect(decoded.message.attributes.count == 7)
    }

    @Test func malformedHeadersAreRefused() {
        var valid = STUNMessage(type: .bindingRequest, transactionID: id).encoded()
        #expect(throws: STUNDecodingError.tooShort) { try DecodedSTUNMessage(decoding: Array(valid.prefix(19))) }
        valid[4] = 0
        #expect(throws: STUNDecodingError.notSTUN) { try DecodedSTUNMessage(decoding: valid) }
        let withAttribute = STUNMessage(type: .bindingRequest, transactionID: id, attributes: [.priority(7)]).encoded()
        #expect(throws: STUNDecodingError.lengthMismatch) { try DecodedSTUNMessage(decoding: withAttribute.dropLast(4)) }
        var truncated = withAttribute
        truncated[23] = 8  // PRIORITY claims eight bytes but carries four.
        #expect(throws: STUNDecodingError.truncatedAttribute) { try DecodedSTUNMessage(decoding: truncated) }
        var wrongSize = withAttribute
        wrongSize[23] = 2
        #expect(throws: STUNDecodingError.malformedAttribute(type: 0x0024)) { try DecodedSTUNMessage(decoding: wrongSize) }
    }

    @Test func attributesAfterIntegrityAreIgnoredButNotAfterFingerprint() throws {
        var bytes = STUNMessage(type: .bindingRequest, transactionID: id).encoded(integrityKey: [9], fingerprint: false)
        bytes += [0x00, 0x24, 0x00, 0x04, 0, 0, 0, 1]
        bytes.storeBigEndian(UInt16(bytes.count - 20), at: 2)
        let decoded = try DecodedSTUNMessage(decoding: bytes)
        #expect(decoded.message.priority == nil)
        #expect(decoded.hasValidIntegrity(key: [9]))

        var afterFingerprint = STUNMessage(type: .bindingRequest, transactionID: id).encoded(fingerprint: true)
        afterFingerprint += [0x00, 0x25, 0x00, 0x00]
        afterFingerprint.storeBigEndian(UInt16(afterFingerprint.count - 20), at: 2)
        #expect(throws: STUNDecodingError.attributeAfterFingerprint) { try DecodedSTUNMessage(decoding: afterFingerprint) }
    }

    @Test func addressesParseAndPrint() {
        #expect(IPAddress("10.0.0.1") == .v4(0x0A00_0001))
        #expect(IPAddress("::1") == .v6(high: 0, low: 1))
        #expect(IPAddress("::1")?.description == "::1")
        #expect(IPAddress("fe80::1:0:0:2")?.description == "fe80::1:0:0:2")
        #expect(IPAddress("1:0:0:2:0:0:0:3")?.description == "1:0:0:2::3")
        for bad in ["256.0.0.1", "1.2.3", "1::2::3", "12345::", "", "a.b.c.d"] {
            #expect(IPAddress(bad) == nil, "\(bad)")
        }
    }

    @Test func randomBytesNeverTrap() async {
        await propertyCheck(count: 2_000, input: Gen.uint8().array(of: 0...120)) { bytes in
            var datagram = bytes
            // Half the time a plausible header, so that attribute parsing is reached.
            if datagram.count >= 20, datagram[0] & 1 == 0 {
                datagram[0] = 0
                datagram[1] = 1
                datagram.storeBigEndian(UInt16((datagram.count - 20) & ~3), at: 2)
                datagram.storeBigEndian(STUNMessage.magicCookie, at: 4)
                datagram = Array(datagram.prefix(20 + (datagram.count - 20) & ~3))
            }
            if let decoded = try? DecodedSTUNMessage(decoding: datagram) {
                _ = decoded.hasValidFingerprint
                _ = decoded.hasValidIntegrity(key: [1])
                // Whatever decodes re-encodes to the same attributes (less integrity and fingerprint).
                let again = try? DecodedSTUNMessage(decoding: decoded.message.encoded())
                #expect(again?.message.attributes == decoded.message.attributes.filter {
                    switch $0 {
                    case .messageIntegrity, .fingerprint: false
                    default: true
                    }
                })
            }
        }
    }
}
