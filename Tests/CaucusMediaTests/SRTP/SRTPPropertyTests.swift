@testable import CaucusMedia
import PropertyBased
import Testing

/// What a peer (or anyone on the path) sends must end in an error value, never a trap, and
/// never in a packet accepted that should not be.
@Suite struct SRTPPropertyTests {
    static let bytes = Gen.uint8().array(of: 0...300)

    /// Random datagrams, half of them made to look like version-2 RTP/RTCP so they reach the
    /// header and tag checks, are all refused on both paths.
    @Test(.shrinking(false))
    func randomBytesAreRefused() async throws {
        let receivers = try SRTPProfile.allCases.map { try SRTPTestPackets.pair($0).receiver }
        await propertyCheck(count: 2_000, input: Self.bytes, Gen.bool) { bytes, looksLikeRTP in
            var datagram = bytes
            if looksLikeRTP, !datagram.isEmpty { datagram[0] = 0x80 | (datagram[0] & 0x3F) }
            for receiver in receivers {
                var rtp = datagram
                #expect(throws: SRTPError.self) { try receiver.unprotect(srtp: &rtp) }
                var rtcp = datagram
                #expect(throws: SRTPError.self) { try receiver.unprotect(srtcp: &rtcp) }
            }
        }
    }

    /// Any single flipped bit of a protected packet, header, payload, index or tag, is refused.
    @Test(.shrinking(false))
    func everyFlippedBitIsRefused() async throws {
        await propertyCheck(count: 500, input: Gen.int(in: 0...200), Gen.int(in: 0...1_000_000), Gen.bool) {
            payloadLength, position, isRTCP in
            for profile in SRTPProfile.allCases {
                let (sender, receiver) = try SRTPTestPackets.pair(profile)
                var packet =
                    isRTCP
                    ? SRTPTestPackets.rtcp(seed: UInt8(truncatingIfNeeded: payloadLength))
                    : SRTPTestPackets.rtp(sequence: UInt16(payloadLength), payloadLength: payloadLength, csrcs: payloadLength % 3)
                if isRTCP { try sender.protect(rtcp: &packet) } else { try sender.protect(rtp: &packet) }
                let bit = position % (packet.count * 8)
                packet[bit / 8] ^= 1 << UInt8(bit % 8)
                #expect(throws: SRTPError.self, "bit \(bit) of \(packet.count) bytes, \(profile)") {
                    if isRTCP { try receiver.unprotect(srtcp: &packet) } else { try receiver.unprotect(srtp: &packet) }
                }
            }
        }
    }

    /// Packets delivered in a random order with duplicates: each is accepted exactly once
    /// and decrypts to what was sent.
    @Test(.shrinking(false))
    func eachPacketIsAcceptedOnce() async throws {
        let deliveries = Gen.int(in: 0...59).array(of: 1...300)
        await propertyCheck(count: 100, input: deliveries) { order in
            for profile in SRTPProfile.allCases {
                let (sender, receiver) = try SRTPTestPackets.pair(profile)
                var sent: [[UInt8]] = []
                for sequence in UInt16(0)..<60 {
                    var packet = SRTPTestPackets.rtp(sequence: 1_000 + sequence, payloadLength: Int(sequence))
                    try sender.protect(rtp: &packet)
                    sent.append(packet)
                }
                var accepted = Set<Int>()
                for index in order {
                    var packet = sent[index]
                    do {
                        try receiver.unprotect(srtp: &packet)
                        #expect(accepted.insert(index).inserted, "packet \(index) accepted twice")
                        #expect(packet == SRTPTestPackets.rtp(sequence: 1_000 + UInt16(index), payloadLength: index))
                    } catch {
                        #expect(accepted.contains(index), "packet \(index) refused: \(error)")
                    }
                }
                #expect(accepted.count == Set(order).count)
            }
        }
    }
}
