import CaucusMedia
import Testing

/// The buffer entry points the UDP shell will use (no allocation) give exactly the bytes of
/// the array ones, and refuse a buffer with no room for the trailer.
@Suite struct SRTPInPlaceTests {
    @Test(arguments: SRTPProfile.allCases)
    func buffersMatchArrays(profile: SRTPProfile) throws {
        let (arraySender, _) = try SRTPTestPackets.pair(profile)
        let (bufferSender, receiver) = try SRTPTestPackets.pair(profile)
        var storage = [UInt8](repeating: 0xEE, count: 1_500)
        for sequence in UInt16(0)..<5 {
            for isRTCP in [false, true] {
                let plain =
                    isRTCP
                    ? SRTPTestPackets.rtcp(seed: UInt8(sequence))
                    : SRTPTestPackets.rtp(sequence: sequence, payloadLength: 100 * Int(sequence), csrcs: Int(sequence))
                var viaArray = plain
                if isRTCP { try arraySender.protect(rtcp: &viaArray) } else { try arraySender.protect(rtp: &viaArray) }
                let viaBuffer = try storage.withUnsafeMutableBytes { buffer in
                    buffer.copyBytes(from: plain)
                    let length =
                        isRTCP
                        ? try bufferSender.protect(rtcp: buffer, length: plain.count)
                        : try bufferSender.protect(rtp: buffer, length: plain.count)
                    return Array(buffer[..<length])
                }
                #expect(viaBuffer == viaArray)
                let opened = try storage.withUnsafeMutableBytes { buffer in
                    let packet = UnsafeMutableRawBufferPointer(rebasing: buffer[..<viaBuffer.count])
                    let length = isRTCP ? try receiver.unprotect(srtcp: packet) : try receiver.unprotect(srtp: packet)
                    return Array(buffer[..<length])
                }
                #expect(opened == plain)
            }
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func aBufferWithoutRoomIsRefused(profile: SRTPProfile) throws {
        let (sender, _) = try SRTPTestPackets.pair(profile)
        let plain = SRTPTestPackets.rtp(sequence: 1, payloadLength: 20)
        var storage = plain + [UInt8](repeating: 0, count: profile.tagLength - 1)
        #expect(throws: SRTPError.bufferTooSmall) {
            try storage.withUnsafeMutableBytes { _ = try sender.protect(rtp: $0, length: plain.count) }
        }
        #expect(throws: SRTPError.bufferTooSmall) {
            try storage.withUnsafeMutableBytes { _ = try sender.protect(rtcp: $0, length: plain.count) }
        }
        // The array entry points leave a refused packet as it was.
        var malformed: [UInt8] = [0x00] + plain.dropFirst()
        #expect(throws: SRTPError.malformedHeader) { try sender.protect(rtp: &malformed) }
        #expect(malformed.count == plain.count)
    }
}
