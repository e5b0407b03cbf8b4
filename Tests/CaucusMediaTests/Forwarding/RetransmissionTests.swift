import CaucusMedia
import CaucusSFU
import Testing

/// RTX packets (RFC 4588): a repair wrapped for a subscriber's RTX stream in place, and a
/// publisher's RTX packet restored to its original.
@Suite struct RetransmissionTests {
    static let original = RTPPacket(
        marker: true, payloadType: 96, sequenceNumber: 4242, timestamp: 90_000, ssrc: 0xAABB_CCDD, csrcs: [9],
        headerExtension: .oneByte([.init(id: 3, data: [1, 2])]), payload: [0x10, 0x00, 7, 7, 7])

    static func wrapped(_ packet: RTPPacket, as rtx: RTXEncapsulation) throws -> [UInt8]? {
        var bytes = packet.encoded() + [0, 0]
        let length = bytes.count - 2
        guard let out = bytes.withUnsafeMutableBytes({ RTXPacket.wrap($0, length: length, as: rtx) }) else { return nil }
        return Array(bytes[..<out])
    }

    @Test func aRepairIsWrappedWithTheOriginalNumberBeforeItsPayload() throws {
        let rtx = RTXEncapsulation(ssrc: 0x0102_0304, payloadType: 97, sequenceNumber: 65535)
        let bytes = try #require(try Self.wrapped(Self.original, as: rtx))
        let packet = try RTPPacket(decoding: bytes)
        #expect(packet.ssrc == 0x0102_0304 && packet.payloadType == 97 && packet.sequenceNumber == 65535)
        #expect(packet.marker && packet.timestamp == 90_000 && packet.csrcs == [9], "the original's other fields are kept")
        #expect(packet.headerExtension == Self.original.headerExtension)
        #expect(packet.payload == [0x10, 0x92] + Self.original.payload, "OSN 4242, then the original payload")
    }

    @Test func unwrappingRestoresTheOriginal() throws {
        let rtx = RTXEncapsulation(ssrc: 77, payloadType: 97, sequenceNumber: 3)
        let bytes = try #require(try Self.wrapped(Self.original, as: rtx))
        let restored = try #require(RTXPacket.unwrap(bytes, mediaSSRC: 0xAABB_CCDD, mediaPayloadType: 96))
        #expect(try RTPPacket(decoding: restored) == Self.original)

        var padded = Self.original
        padded.paddingLength = 8
        let paddedRTX = try #require(try Self.wrapped(padded, as: rtx))
        let fromPadded = try #require(RTXPacket.unwrap(paddedRTX, mediaSSRC: 0xAABB_CCDD, mediaPayloadType: 96))
        #expect(try RTPPacket(decoding: fromPadded) == Self.original, "padding dropped, the P bit cleared")
    }

    /// A bandwidth probe's padding, or an OSN with nothing after it, restores nothing.
    @Test func anRTXPacketWithoutAnOriginalRestoresNothing() throws {
        let probe = RTPPacket(payloadType: 97, sequenceNumber: 1, timestamp: 0, ssrc: 77, payload: [], paddingLength: 200).encoded()
        #expect(RTXPacket.unwrap(probe, mediaSSRC: 1, mediaPayloadType: 96) == nil)
        let osnOnly = RTPPacket(payloadType: 97, sequenceNumber: 1, timestamp: 0, ssrc: 77, payload: [0, 5]).encoded()
        #expect(RTXPacket.unwrap(osnOnly, mediaSSRC: 1, mediaPayloadType: 96) == nil)
        #expect(RTXPacket.unwrap([0x80, 97, 0], mediaSSRC: 1, mediaPayloadType: 96) == nil)
    }

    @Test func wrappingNeedsRoomForTheOriginalNumber() {
        var bytes = Self.original.encoded()
        let length = bytes.count
        let out = bytes.withUnsafeMutableBytes { RTXPacket.wrap($0, length: length, as: RTXEncapsulation(ssrc: 1, payloadType: 97, sequenceNumber: 1)) }
        #expect(out == nil)
        #expect(bytes == Self.original.encoded(), "nothing written")
    }

    /// Whatever the bytes, wrapping and unwrapping stay inside the packet and never trap.
    @Test func arbitraryBytesNeverTrap() {
        var random = SplitMix(seed: 4588)
        for _ in 0..<20_000 {
            let length = Int(random.next() % 48)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) } + [0, 0]
            if length > 0 { bytes[0] = 0x80 | bytes[0] & 0x3F }
            let restored = RTXPacket.unwrap(Array(bytes[..<length]), mediaSSRC: 1, mediaPayloadType: 96)
            #expect(restored.map { $0.count >= 12 && $0.count < length } ?? true)
            let wrapped = bytes.withUnsafeMutableBytes { RTXPacket.wrap($0, length: length, as: RTXEncapsulation(ssrc: 1, payloadType: 97, sequenceNumber: 1)) }
            #expect(wrapped.map { $0 == length + 2 } ?? true)
        }
    }
}
