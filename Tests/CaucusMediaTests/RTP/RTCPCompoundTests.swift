@testable import CaucusMedia
import PropertyBased
import Testing

/// `RTCPCompound` reads what `RTCPPacket.decodeCompound` decodes, the same packets in the same
/// order, refusing what it refuses; its generic NACKs and transport-cc feedback are read in place.
@Suite struct RTCPCompoundTests {
    /// The compound's packets, those read in place decoded; or the error it was refused with.
    static func read(_ datagram: [UInt8]) -> Result<[RTCPPacket], RTPDecodingError> {
        do throws(RTPDecodingError) {
            return .success(try RTCPCompound(datagram).map { packet in
                switch packet {
                case .genericNACK(let nack): .genericNACK(nack.decoded)
                case .transportCC(let feedback): .feedback(feedback.decoded)
                case .decoded(let decoded): decoded
                }
            })
        } catch {
            return .failure(error)
        }
    }

    static func decode(_ datagram: [UInt8]) -> Result<[RTCPPacket], RTPDecodingError> {
        do throws(RTPDecodingError) { return .success(try RTCPPacket.decodeCompound(datagram)) } catch { return .failure(error) }
    }

    @Test func aNACKBetweenOtherPacketsIsReadInPlaceAndInItsPlace() throws {
        let datagram = RTCPPacketTests.receiverReport + RTCPPacketTests.nack + RTCPPacketTests.remb + RTCPPacketTests.nack
        let packets = Array(try RTCPCompound(datagram))
        #expect(packets.count == 4)
        guard case .decoded(.receiverReport) = packets[0], case .genericNACK(let nack) = packets[1],
            case .decoded(.feedback(let remb)) = packets[2], case .genericNACK = packets[3]
        else {
            Issue.record("got \(packets)")
            return
        }
        #expect(remb.isREMB)
        #expect((nack.senderSSRC, nack.mediaSSRC) == (1, 2))
        #expect(Array(nack.lostSequenceNumbers) == [100, 101, 103])
        #expect(Self.read(datagram) == Self.decode(datagram))
    }

    @Test func aTransportCCFeedbackIsReadInPlaceAsASliceOfTheDatagram() throws {
        let fci: [UInt8] = hexBytes("00640003 00000101 d9000000 01020300")
        let feedback = RTCPOpaqueFeedback(packetType: RTCPFeedbackType.transport, format: 15, senderSSRC: 7, mediaSSRC: 9, feedbackControlInformation: fci)
        let datagram = RTCPPacketTests.receiverReport + RTCPPacket.feedback(feedback).encoded() + RTCPPacketTests.nack
        let packets = Array(try RTCPCompound(datagram))
        guard packets.count == 3, case .decoded(.receiverReport) = packets[0], case .transportCC(let view) = packets[1], case .genericNACK = packets[2] else {
            Issue.record("got \(packets)")
            return
        }
        #expect((view.senderSSRC, view.mediaSSRC) == (7, 9))
        #expect(Array(view.feedbackControlInformation) == fci)
        #expect(view.feedbackControlInformation.startIndex == RTCPPacketTests.receiverReport.count + 12, "where it lies, not a copy")
        #expect(view.decoded == feedback)
        #expect(Self.read(datagram) == Self.decode(datagram))
        // Payload-specific format 15 (REMB) is not transport-cc: decoded as before.
        guard case .decoded(.feedback(let remb)) = try RTCPCompound(RTCPPacketTests.remb).first(where: { _ in true }) else {
            Issue.record("REMB not decoded")
            return
        }
        #expect(remb.isREMB)
    }

    @Test func lostNumbersUnpackAcrossTheWrapAsTheDecodedNACKs() throws {
        let lost: [UInt16] = [65534, 65535, 0, 14, 15, 40, 41, 56, 57]
        let nack = RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 2, lost: lost)
        guard case .genericNACK(let view) = try RTCPCompound(RTCPPacket.genericNACK(nack).encoded()).first(where: { _ in true }) else {
            Issue.record("no NACK read")
            return
        }
        #expect(Array(view.lostSequenceNumbers) == lost)
        #expect(view.decoded == nack)
        // Every bit of a mask, the ID's own number first.
        let full = RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 2, pairs: [.init(packetID: 7, bitmask: 0xFFFF)])
        guard case .genericNACK(let all) = try RTCPCompound(RTCPPacket.genericNACK(full).encoded()).first(where: { _ in true }) else { return }
        #expect(Array(all.lostSequenceNumbers) == Array(7...23))
    }

    @Test func malformedNACKsAndCompoundsAreRefusedAsDecodingRefusesThem() {
        for datagram in [
            hexBytes("81cd0001 00000001"),  // no media SSRC
            hexBytes("8fcd0001 00000001"),  // a transport-cc without its media SSRC
            hexBytes("81cd0003 00000001 00000002 0064"),  // length past the end
            hexBytes("a1cd0003 00000001 00000002 00640002"),  // padding that leaves half a pair
            RTCPPacketTests.nack + [0x81, 0xCD],
            [0x81, 0xCD],
        ] {
            #expect(throws: (any Error).self) { try RTCPCompound(datagram) }
            #expect(Self.read(datagram) == Self.decode(datagram))
        }
    }

    @Test func randomBytesAreReadAsDecodingReadsThem() async {
        await propertyCheck(count: 3_000, input: Gen.uint8().array(of: 0...100)) { bytes in
            var datagram = bytes
            if datagram.count >= 4 {
                datagram[0] = 0x80 | datagram[0] & 0x3F
                // Mostly generic NACKs and transport-cc, and what sits beside them.
                datagram[1] = datagram[1] % 3 == 0 ? 200 + datagram[1] % 8 : RTCPFeedbackType.transport
                if datagram[1] == RTCPFeedbackType.transport {
                    let format: UInt8 = [1, 15, datagram[0] & 0x1F][Int(datagram[2]) % 3]
                    datagram[0] = datagram[0] & 0xE0 | format
                }
                datagram.storeBigEndian(UInt16(datagram.count / 4 - 1), at: 2)
                datagram = Array(datagram.prefix(datagram.count / 4 * 4))
            }
            #expect(Self.read(datagram) == Self.decode(datagram))
        }
    }

    @Test func encodedCompoundsAreReadAsDecoded() async {
        await propertyCheck(count: 1_000, input: Gen.uint64()) { seed in
            var random = SplitMix(seed: seed)
            let packets = (0..<Int.random(in: 1...5, using: &random)).map { _ in RTCPPacketTests.randomPacket(using: &random) }
            #expect(Self.read(RTCPPacket.encodeCompound(packets)) == .success(packets))
        }
    }
}
