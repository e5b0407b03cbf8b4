@testable import CaucusMedia
import PropertyBased
import Testing

@Suite struct RTPPacketTests {
    /// Opus, one-byte extensions: audio level (ID 1, voice, −5 dBov) and MID (ID 3, "1").
    static let opus = hexBytes("906f1234 000003e8 deadbeef bede0001 10853031 f8fffe")
    /// VP8-ish: marker, a CSRC, a two-byte extension block, padding of three bytes.
    static let padded = hexBytes("b1e00001 00000002 00000003 00000004 10000002 05000703 61626300 0102 000003")

    @Test func decodesOneByteExtensions() throws {
        let packet = try RTPPacket(decoding: Self.opus)
        #expect(packet.payloadType == 111)
        #expect(!packet.marker)
        #expect(packet.sequenceNumber == 0x1234)
        #expect(packet.timestamp == 1000)
        #expect(packet.ssrc == 0xDEAD_BEEF)
        #expect(packet.payload == [0xF8, 0xFF, 0xFE])
        #expect(AudioLevel(extensionData: packet.headerExtension?.element(id: 1) ?? []) == AudioLevel(voiceActivity: true, level: 5))
        #expect(packet.headerExtension?.element(id: 3) == Array("1".utf8))
        #expect(packet.encoded() == Self.opus)
    }

    @Test func decodesCSRCsTwoByteExtensionsAndPadding() throws {
        let packet = try RTPPacket(decoding: Self.padded)
        #expect(packet.marker)
        #expect(packet.payloadType == 96)
        #expect(packet.csrcs == [4])
        #expect(packet.headerExtension == .twoByte(appBits: 0, [
            RTPHeaderExtensionElement(id: 5, data: []), RTPHeaderExtensionElement(id: 7, data: Array("abc".utf8)),
        ]))
        #expect(packet.payload == [1, 2])
        #expect(packet.paddingLength == 3)
        #expect(packet.encoded() == Self.padded)
    }

    @Test func extensionFormChosenByWhatFits() {
        let small = [RTPHeaderExtensionElement(id: 1, data: [0x80])]
        #expect(RTPHeaderExtension(elements: small) == .oneByte(small))
        let large = [RTPHeaderExtensionElement(id: 15, data: [1])]
        #expect(RTPHeaderExtension(elements: large) == .twoByte(appBits: 0, large))
        let empty = [RTPHeaderExtensionElement(id: 2, data: [])]
        #expect(RTPHeaderExtension(elements: empty) == .twoByte(appBits: 0, empty))
    }

    @Test func malformedPacketsAreRefused() {
        #expect(throws: RTPDecodingError.truncated) { try RTPPacket(decoding: Array(Self.opus.prefix(11))) }
        var version1 = Self.opus
        version1[0] = 0x50
        #expect(throws: RTPDecodingError.wrongVersion) { try RTPPacket(decoding: version1) }
        var manyCSRCs = Self.opus
        manyCSRCs[0] = 0x8F
        #expect(throws: RTPDecodingError.truncated) { try RTPPacket(decoding: manyCSRCs) }
        var zeroPadding = Self.padded
        zeroPadding[zeroPadding.count - 1] = 0
        #expect(throws: RTPDecodingError.invalidPadding) { try RTPPacket(decoding: zeroPadding) }
        var hugePadding = Self.padded
        hugePadding[hugePadding.count - 1] = 200
        #expect(throws: RTPDecodingError.invalidPadding) { try RTPPacket(decoding: hugePadding) }
        var longElement = Self.opus
        longElement[18] = 0x3F  // MID claims 16 bytes inside a 4-byte block
        #expect(throws: RTPDecodingError.invalidHeaderExtension) { try RTPPacket(decoding: longElement) }
    }

    @Test func rewritesHeaderFieldsInPlace() {
        var datagram = Self.padded
        #expect(RTPHeaderFields.rewrite(&datagram, payloadType: 100, sequenceNumber: 0xABCD, timestamp: 0x0102_0304, ssrc: 0x0506_0708))
        #expect(RTPHeaderFields.payloadType(of: datagram) == 100)
        #expect(RTPHeaderFields.sequenceNumber(of: datagram) == 0xABCD)
        #expect(RTPHeaderFields.timestamp(of: datagram) == 0x0102_0304)
        #expect(RTPHeaderFields.ssrc(of: datagram) == 0x0506_0708)
        // Everything but the rewritten fields is left alone, the marker bit included.
        #expect(datagram[1] == 0x80 | 100)
        #expect(datagram[12...] == Self.padded[12...])
        var short: [UInt8] = [0x80, 0, 0]
        #expect(!RTPHeaderFields.rewrite(&short, ssrc: 1))
        #expect(short == [0x80, 0, 0])
        #expect(RTPHeaderFields.ssrc(of: short) == nil)
    }

    @Test func readsExtensionElementsInPlace() {
        #expect(RTPHeaderFields.extensionElement(id: 1, in: Self.opus).flatMap(AudioLevel.init(extensionData:)) == AudioLevel(voiceActivity: true, level: 5))
        #expect(RTPHeaderFields.extensionElement(id: 3, in: Self.opus).map(Array.init) == Array("1".utf8))
        #expect(RTPHeaderFields.extensionElement(id: 2, in: Self.opus) == nil)
        #expect(RTPHeaderFields.extensionElement(id: 7, in: Self.padded).map(Array.init) == Array("abc".utf8))
        #expect(RTPHeaderFields.extensionElement(id: 5, in: Self.padded)?.isEmpty == true)
        #expect(RTPHeaderFields.extensionElement(id: 1, in: Array(Self.opus.prefix(18))) == nil)
    }

    /// In-place reading agrees with decoding, on random valid packets.
    @Test func inPlaceExtensionReadingAgreesWithDecoding() async {
        await propertyCheck(count: 500, input: Gen.uint64()) { seed in
            var random = SplitMix(seed: seed)
            let packet = Self.randomPacket(using: &random)
            let datagram = packet.encoded()
            for id in UInt8(1)...20 {
                let inPlace = RTPHeaderFields.extensionElement(id: id, in: datagram).map(Array.init)
                #expect(inPlace == packet.headerExtension?.element(id: id))
            }
        }
    }

    @Test func randomBytesNeverTrap() async {
        await propertyCheck(count: 3_000, input: Gen.uint8().array(of: 0...80)) { bytes in
            var datagram = bytes
            if !datagram.isEmpty { datagram[0] = 0x80 | datagram[0] & 0x3F }
            _ = RTPHeaderFields.extensionElement(id: 1, in: datagram)
            if let packet = try? RTPPacket(decoding: datagram) {
                // What decodes re-encodes to something that decodes to the same packet.
                #expect((try? RTPPacket(decoding: packet.encoded())) == packet)
            }
        }
    }

    @Test func encodeThenDecodeIsTheIdentity() async {
        await propertyCheck(count: 1_000, input: Gen.uint64()) { seed in
            var random = SplitMix(seed: seed)
            let packet = Self.randomPacket(using: &random)
            #expect((try? RTPPacket(decoding: packet.encoded())) == packet)
        }
    }

    static func randomPacket(using random: inout SplitMix) -> RTPPacket {
        let elementCount = Int.random(in: 0...4, using: &random)
        var headerExtension: RTPHeaderExtension?
        switch Int.random(in: 0...3, using: &random) {
        case 0:
            headerExtension = nil
        case 1:
            headerExtension = .oneByte((0..<elementCount).map { _ in
                RTPHeaderExtensionElement(id: .random(in: 1...14, using: &random), data: random.bytes(1...16))
            })
        case 2:
            headerExtension = .twoByte(appBits: .random(in: 0...15, using: &random), (0..<elementCount).map { _ in
                RTPHeaderExtensionElement(id: .random(in: 1...255, using: &random), data: random.bytes(0...40))
            })
        default:
            headerExtension = .other(profile: .random(in: 0...0x0FFF, using: &random), data: random.words(0...3))
        }
        return RTPPacket(
            marker: .random(using: &random), payloadType: .random(in: 0...127, using: &random),
            sequenceNumber: .random(in: 0...UInt16.max, using: &random), timestamp: .random(in: 0...UInt32.max, using: &random),
            ssrc: .random(in: 0...UInt32.max, using: &random),
            csrcs: (0..<Int.random(in: 0...15, using: &random)).map { _ in .random(in: 0...UInt32.max, using: &random) },
            headerExtension: headerExtension, payload: random.bytes(0...300),
            paddingLength: Bool.random(using: &random) ? 0 : .random(in: 1...255, using: &random))
    }
}
