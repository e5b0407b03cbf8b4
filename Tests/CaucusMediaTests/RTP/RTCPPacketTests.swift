@testable import CaucusMedia
import PropertyBased
import Testing

@Suite struct RTCPPacketTests {
    static let senderReport = hexBytes("80c80006 11223344 e1234567 89abcdef 00001000 0000000a 000003e8")
    static let receiverReport = hexBytes("81c90007 00000001 00000002 19fffffe 00010010 00000020 00000030 00000040")
    static let pli = hexBytes("81ce0002 00000001 00000002")
    static let fir = hexBytes("84ce0004 00000001 00000000 00000005 07000000")
    static let nack = hexBytes("81cd0003 00000001 00000002 00640005")
    static let remb = hexBytes("8fce0005 00000001 00000000 52454d42 010a1234 00000002")
    static let bye = hexBytes("81cb0002 00000001 03627965")

    @Test func decodesAReportCompound() throws {
        let packets = try RTCPPacket.decodeCompound(Self.senderReport + Self.receiverReport)
        #expect(packets == [
            .senderReport(RTCPSenderReport(
                ssrc: 0x1122_3344, ntpTimestamp: 0xE123_4567_89AB_CDEF, rtpTimestamp: 4096, packetCount: 10, octetCount: 1000)),
            .receiverReport(RTCPReceiverReport(ssrc: 1, reports: [RTCPReportBlock(
                ssrc: 2, fractionLost: 0x19, cumulativeLost: -2, highestSequenceNumber: 0x0001_0010,
                jitter: 0x20, lastSenderReport: 0x30, delaySinceLastSenderReport: 0x40)])),
        ])
        #expect(RTCPPacket.encodeCompound(packets) == Self.senderReport + Self.receiverReport)
    }

    @Test func decodesFeedback() throws {
        #expect(try RTCPPacket.decodeCompound(Self.pli) == [.pictureLossIndication(senderSSRC: 1, mediaSSRC: 2)])
        #expect(try RTCPPacket.decodeCompound(Self.fir) == [.fullIntraRequest(RTCPFullIntraRequest(
            senderSSRC: 1, entries: [.init(ssrc: 5, sequenceNumber: 7)]))])
        let packets = try RTCPPacket.decodeCompound(Self.nack + Self.remb)
        guard case .genericNACK(let nack) = packets.first, case .feedback(let remb) = packets.last else {
            Issue.record("got \(packets)")
            return
        }
        #expect(nack.lostSequenceNumbers == [100, 101, 103])
        #expect(remb.isREMB)
        #expect(!remb.isTransportCC)
        for bytes in [Self.pli, Self.fir, Self.nack, Self.remb, Self.bye] {
            #expect(RTCPPacket.encodeCompound(try RTCPPacket.decodeCompound(bytes)) == bytes)
        }
    }

    @Test func goodbyeAndOpaqueSourceDescription() throws {
        #expect(try RTCPPacket.decodeCompound(Self.bye) == [.goodbye(RTCPGoodbye(ssrcs: [1], reason: Array("bye".utf8)))])
        let sdes = hexBytes("81ca0002 00000001 01026869")
        #expect(try RTCPPacket.decodeCompound(sdes) == [.sourceDescription(count: 1, body: hexBytes("00000001 01026869"))])
    }

    @Test func nackPacksAndExpandsAcrossTheWrap() {
        let lost: [UInt16] = [65534, 65535, 0, 14, 15, 40]
        let nack = RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 2, lost: lost)
        #expect(nack.pairs == [.init(packetID: 65534, bitmask: 0b1000_0000_0000_0011), .init(packetID: 15, bitmask: 0), .init(packetID: 40, bitmask: 0)])
        #expect(nack.lostSequenceNumbers == lost)
    }

    @Test func paddingIsStrippedAndChecked() throws {
        // An RR with four bytes of padding (count byte 4) after its SSRC.
        let padded = hexBytes("a0c90002 00000009 00000004")
        #expect(try RTCPPacket.decodeCompound(padded) == [.receiverReport(RTCPReceiverReport(ssrc: 9))])
        #expect(throws: RTPDecodingError.invalidPadding) { try RTCPPacket.decodeCompound(hexBytes("a0c90002 00000009 00000000")) }
        #expect(throws: RTPDecodingError.invalidPadding) { try RTCPPacket.decodeCompound(hexBytes("a0c90002 00000009 00000009")) }
    }

    @Test func malformedCompoundsAreRefused() {
        #expect(throws: RTPDecodingError.truncated) { try RTCPPacket.decodeCompound([0x80, 0xC8]) }
        #expect(throws: RTPDecodingError.invalidLength) { try RTCPPacket.decodeCompound(Array(Self.senderReport.dropLast(4))) }
        #expect(throws: RTPDecodingError.truncated) { try RTCPPacket.decodeCompound(Self.pli + [0x81, 0xCE]) }
        var version = Self.pli
        version[0] = 0x41
        #expect(throws: RTPDecodingError.wrongVersion) { try RTCPPacket.decodeCompound(version) }
        // An RR announcing two report blocks but carrying one.
        var blocks = Self.receiverReport
        blocks[0] = 0x82
        #expect(throws: RTPDecodingError.malformedRTCP(packetType: 201)) { try RTCPPacket.decodeCompound(blocks) }
        #expect(throws: RTPDecodingError.malformedRTCP(packetType: 206)) { try RTCPPacket.decodeCompound(hexBytes("81ce0001 00000001")) }
        #expect(throws: RTPDecodingError.malformedRTCP(packetType: 206)) { try RTCPPacket.decodeCompound(hexBytes("84ce0003 00000001 00000000 00000005")) }
    }

    @Test func randomBytesNeverTrap() async {
        await propertyCheck(count: 3_000, input: Gen.uint8().array(of: 0...100)) { bytes in
            var datagram = bytes
            if datagram.count >= 4 {
                datagram[0] = 0x80 | datagram[0] & 0x1F
                datagram[1] = 200 + datagram[1] % 8
                datagram.storeBigEndian(UInt16(datagram.count / 4 - 1), at: 2)
                datagram = Array(datagram.prefix(datagram.count / 4 * 4))
            }
            if let packets = try? RTCPPacket.decodeCompound(datagram) {
                #expect((try? RTCPPacket.decodeCompound(RTCPPacket.encodeCompound(packets))) == packets)
            }
        }
    }

    @Test func encodeThenDecodeIsTheIdentity() async {
        await propertyCheck(count: 1_000, input: Gen.uint64()) { seed in
            var random = SplitMix(seed: seed)
            let packets = (0..<Int.random(in: 1...5, using: &random)).map { _ in Self.randomPacket(using: &random) }
            #expect((try? RTCPPacket.decodeCompound(RTCPPacket.encodeCompound(packets))) == packets)
        }
    }

    static func randomBlock(using random: inout SplitMix) -> RTCPReportBlock {
        RTCPReportBlock(
            ssrc: .random(in: 0...UInt32.max, using: &random), fractionLost: .random(in: 0...255, using: &random),
            cumulativeLost: .random(in: -0x80_0000...0x7F_FFFF, using: &random),
            highestSequenceNumber: .random(in: 0...UInt32.max, using: &random), jitter: .random(in: 0...UInt32.max, using: &random),
            lastSenderReport: .random(in: 0...UInt32.max, using: &random),
            delaySinceLastSenderReport: .random(in: 0...UInt32.max, using: &random))
    }

    static func randomPacket(using random: inout SplitMix) -> RTCPPacket {
        let ssrc = UInt32.random(in: 0...UInt32.max, using: &random)
        let other = UInt32.random(in: 0...UInt32.max, using: &random)
        let blocks = (0..<Int.random(in: 0...31, using: &random)).map { _ in randomBlock(using: &random) }
        switch Int.random(in: 0...8, using: &random) {
        case 0:
            return .senderReport(RTCPSenderReport(
                ssrc: ssrc, ntpTimestamp: .random(in: 0...UInt64.max, using: &random), rtpTimestamp: other,
                packetCount: other &+ 1, octetCount: other &+ 2, reports: blocks, profileExtension: random.words(0...2)))
        case 1:
            return .receiverReport(RTCPReceiverReport(ssrc: ssrc, reports: blocks, profileExtension: random.words(0...2)))
        case 2:
            return .sourceDescription(count: .random(in: 0...31, using: &random), body: random.words(0...6))
        case 3:
            let reason: [UInt8]? = Bool.random(using: &random) ? random.bytes(0...255) : nil
            return .goodbye(RTCPGoodbye(ssrcs: (0..<Int.random(in: 0...31, using: &random)).map { _ in .random(in: 0...UInt32.max, using: &random) }, reason: reason))
        case 4:
            return .pictureLossIndication(senderSSRC: ssrc, mediaSSRC: other)
        case 5:
            return .fullIntraRequest(RTCPFullIntraRequest(senderSSRC: ssrc, entries: (0..<Int.random(in: 0...4, using: &random)).map { _ in
                .init(ssrc: .random(in: 0...UInt32.max, using: &random), sequenceNumber: .random(in: 0...255, using: &random))
            }))
        case 6:
            return .genericNACK(RTCPGenericNACK(senderSSRC: ssrc, mediaSSRC: other, pairs: (0..<Int.random(in: 0...6, using: &random)).map { _ in
                .init(packetID: .random(in: 0...UInt16.max, using: &random), bitmask: .random(in: 0...UInt16.max, using: &random))
            }))
        case 7:
            // REMB, transport-cc and formats nobody here reads: kept as they came.
            let type = Bool.random(using: &random) ? RTCPFeedbackType.transport : RTCPFeedbackType.payloadSpecific
            let format = UInt8.random(in: 5...31, using: &random)
            return .feedback(RTCPOpaqueFeedback(packetType: type, format: format, senderSSRC: ssrc, mediaSSRC: other, feedbackControlInformation: random.words(0...5)))
        default:
            let type = [204, 207, 208, 223].randomElement(using: &random)!
            return .other(packetType: UInt8(type), count: .random(in: 0...31, using: &random), body: random.words(0...5))
        }
    }
}
