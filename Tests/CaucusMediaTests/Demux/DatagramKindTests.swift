import CaucusMedia
import Testing

@Suite struct DatagramKindTests {
    @Test func firstByteRangesFollowRFC7983() {
        let stun = STUNMessage(type: .bindingRequest, transactionID: .random()).encoded(fingerprint: true)
        #expect(DatagramKind(classifying: stun) == .stun)
        #expect(DatagramKind(classifying: [0x16, 0xFE, 0xFD] + Array(repeating: 0, count: 10)) == .dtls)  // handshake
        #expect(DatagramKind(classifying: [0x17, 0xFE, 0xFD]) == .dtls)  // application data
        #expect(DatagramKind(classifying: [0x80, 0x6F, 0, 1]) == .rtp)  // PT 111
        #expect(DatagramKind(classifying: [0x80, 0xE0, 0, 1]) == .rtp)  // PT 96 with marker
        #expect(DatagramKind(classifying: [0x80, 200, 0, 6]) == .rtcp)  // SR
        #expect(DatagramKind(classifying: [0x81, 205, 0, 3]) == .rtcp)  // RTPFB
        #expect(DatagramKind(classifying: [0x81, 223]) == .rtcp)
        #expect(DatagramKind(classifying: [0x81, 224]) == .rtp)
        #expect(DatagramKind(classifying: [0x81, 191]) == .rtp)
    }

    @Test func everythingElseIsUnknown() {
        #expect(DatagramKind(classifying: []) == .unknown)
        #expect(DatagramKind(classifying: [0x00, 0x01]) == .unknown)  // too short for STUN
        #expect(DatagramKind(classifying: [0x80]) == .unknown)
        for first: UInt8 in [4, 16, 19, 64, 79, 100, 127, 192, 255] {
            #expect(DatagramKind(classifying: [first] + Array(repeating: 0, count: 30)) == .unknown, "\(first)")
        }
    }
}
