@testable import CaucusMedia
import Testing

/// A datagram read where it lies inside a larger buffer (a recording's batch) reads as the
/// packet `RTPPacket(decoding:)` makes of it alone: the same fields, the same payload, and
/// nothing where the header does not fit.
@Suite struct RTPHeaderFieldsSliceTests {
    /// `datagram` with other bytes before and after it, and the slice that is it.
    static func embedded(_ datagram: [UInt8], using random: inout SplitMix) -> (buffer: [UInt8], slice: Range<Int>) {
        let before = random.bytes(1...40)
        let buffer = before + datagram + random.bytes(1...40)
        return (buffer, before.count..<(before.count + datagram.count))
    }

    @Test(arguments: [RTPPacketTests.opus, RTPPacketTests.padded])
    func anEmbeddedDatagramReadsAsTheDecodedPacket(_ datagram: [UInt8]) throws {
        var random = SplitMix(seed: 7)
        let (buffer, range) = Self.embedded(datagram, using: &random)
        let slice = buffer[range]
        let packet = try RTPPacket(decoding: datagram)
        #expect(RTPHeaderFields.sequenceNumber(of: slice) == packet.sequenceNumber)
        #expect(RTPHeaderFields.timestamp(of: slice) == packet.timestamp)
        #expect(RTPHeaderFields.ssrc(of: slice) == packet.ssrc)
        let payload = try #require(RTPHeaderFields.payloadRange(of: slice))
        #expect(Array(buffer[payload]) == packet.payload)
        #expect(payload.lowerBound >= range.lowerBound && payload.upperBound <= range.upperBound)
    }

    /// Random datagrams (RTP version 2 in one of two), each embedded: where the decoder takes
    /// one, its payload is what the slice's range covers; where it refuses one, a range the slice
    /// still finds is the one the datagram alone gives, moved by the slice's offset.
    @Test func randomDatagramsReadInPlaceAsTheDecoderReadsThem() {
        var random = SplitMix(seed: 0x5EED)
        var decoded = 0
        for _ in 0..<2_000 {
            var datagram = random.bytes(0...80)
            if !datagram.isEmpty, Bool.random(using: &random) { datagram[0] = datagram[0] & 0x3F | 0x80 }
            let (buffer, range) = Self.embedded(datagram, using: &random)
            let found = RTPHeaderFields.payloadRange(of: buffer[range])
            guard let packet = try? RTPPacket(decoding: datagram) else {
                if let found { #expect(RTPHeaderFields.payloadRange(of: datagram) == found.lowerBound - range.lowerBound..<found.upperBound - range.lowerBound) }
                continue
            }
            decoded += 1
            #expect(found.map { Array(buffer[$0]) } == packet.payload, "\(datagram)")
            #expect(RTPHeaderFields.ssrc(of: buffer[range]) == packet.ssrc)
        }
        #expect(decoded > 100, "enough of them decode for the comparison to mean something")
    }

    @Test func aSliceTooShortForTheHeaderHasNoFields() {
        let buffer = RTPPacketTests.opus + RTPPacketTests.opus
        let short = buffer[RTPPacketTests.opus.count..<(RTPPacketTests.opus.count + 11)]
        #expect(RTPHeaderFields.ssrc(of: short) == nil)
        #expect(RTPHeaderFields.payloadRange(of: short) == nil)
        #expect(RTPHeaderFields.sequenceNumber(of: short) == nil)
    }
}
