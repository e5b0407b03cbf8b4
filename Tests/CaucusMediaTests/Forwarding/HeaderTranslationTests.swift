import CaucusMedia
import CaucusSFU
import Testing

/// Renumbering a publisher's packet for a subscriber, in place.
@Suite struct HeaderTranslationTests {
    static let opus96 = SDPCodec(payloadType: 96, name: "opus", clockRate: 48000, channels: 2)
    static let opus111 = SDPCodec(payloadType: 111, name: "opus", clockRate: 48000, channels: 2)

    static func translated(_ packet: RTPPacket, by translation: HeaderTranslation) throws -> RTPPacket {
        var bytes = packet.encoded()
        let length = try #require(bytes.withUnsafeMutableBytes { translation.apply(to: $0, length: $0.count) })
        return try RTPPacket(decoding: Array(bytes[..<length]))
    }

    @Test func codecsMatchByNameClockAndChannelsNotByNumber() {
        let vp8 = StreamFormat(codec: SDPCodec(payloadType: 96, name: "VP8", clockRate: 90000))
        let vp8Elsewhere = StreamFormat(codec: SDPCodec(payloadType: 120, name: "vp8", clockRate: 90000))
        let h264 = StreamFormat(codec: SDPCodec(payloadType: 96, name: "H264", clockRate: 90000, formatParameters: "packetization-mode=1;profile-level-id=42e01f"))
        let h264Level = StreamFormat(codec: SDPCodec(payloadType: 102, name: "H264", clockRate: 90000, formatParameters: "profile-level-id=42e034;packetization-mode=1"))
        let h264Mode0 = StreamFormat(codec: SDPCodec(payloadType: 97, name: "H264", clockRate: 90000, formatParameters: "profile-level-id=42e01f"))
        let h264High = StreamFormat(codec: SDPCodec(payloadType: 98, name: "H264", clockRate: 90000, formatParameters: "packetization-mode=1;profile-level-id=64001f"))
        #expect(vp8.carriesSameCodec(as: vp8Elsewhere))
        #expect(!vp8.carriesSameCodec(as: h264))
        #expect(h264.carriesSameCodec(as: h264Level), "another level of the same profile decodes")
        #expect(!h264.carriesSameCodec(as: h264Mode0))
        #expect(!h264.carriesSameCodec(as: h264High))
        #expect(!StreamFormat(codec: Self.opus96).carriesSameCodec(as: StreamFormat(codec: SDPCodec(payloadType: 96, name: "opus", clockRate: 48000, channels: 1))))
        #expect(HeaderTranslation(from: vp8, to: h264) == nil)
    }

    @Test func oneByteElementsAreRenumberedOrBlanked() throws {
        let publisher = StreamFormat(codec: Self.opus96, headerExtensionIDs: [RTPExtensionURI.mid: 1, RTPExtensionURI.audioLevel: 2, "urn:x": 3])
        let subscriber = StreamFormat(codec: Self.opus111, headerExtensionIDs: [RTPExtensionURI.mid: 4, RTPExtensionURI.audioLevel: 9])
        let translation = try #require(HeaderTranslation(from: publisher, to: subscriber))
        #expect(!translation.isIdentity)
        #expect(translation.extensionID(for: 2) == 9)
        #expect(translation.extensionID(for: 1) == nil, "the publisher's MID names its own section")
        let packet = RTPPacket(
            marker: true, payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3, csrcs: [77],
            headerExtension: .oneByte([.init(id: 1, data: Array("audio0".utf8)), .init(id: 2, data: [0x81]), .init(id: 3, data: [1, 2])]),
            payload: [5, 5, 5])
        let out = try Self.translated(packet, by: translation)
        #expect(out.payloadType == 111 && out.marker && out.csrcs == [77] && out.payload == [5, 5, 5])
        #expect(out.headerExtension == .oneByte([.init(id: 9, data: [0x81])]))
    }

    @Test func twoByteElementsAreRenumberedOrBlanked() throws {
        let publisher = StreamFormat(codec: Self.opus96, headerExtensionIDs: [RTPExtensionURI.audioLevel: 20, RTPExtensionURI.mid: 21])
        let subscriber = StreamFormat(codec: Self.opus96, headerExtensionIDs: [RTPExtensionURI.audioLevel: 30])
        let translation = try #require(HeaderTranslation(from: publisher, to: subscriber))
        let packet = RTPPacket(
            payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3,
            headerExtension: .twoByte(appBits: 0, [.init(id: 21, data: []), .init(id: 20, data: [0x7F])]), payload: [1])
        #expect(try Self.translated(packet, by: translation).headerExtension == .twoByte(appBits: 0, [.init(id: 30, data: [0x7F])]))
    }

    /// A one-byte element whose subscriber ID needs the two-byte form cannot be renumbered in place.
    @Test func anIDTheOneByteFormCannotHoldIsBlanked() throws {
        let publisher = StreamFormat(codec: Self.opus96, headerExtensionIDs: [RTPExtensionURI.audioLevel: 2])
        let subscriber = StreamFormat(codec: Self.opus96, headerExtensionIDs: [RTPExtensionURI.audioLevel: 200])
        let translation = try #require(HeaderTranslation(from: publisher, to: subscriber))
        let packet = RTPPacket(payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3, headerExtension: .oneByte([.init(id: 2, data: [1])]), payload: [1])
        #expect(try Self.translated(packet, by: translation).headerExtension == .oneByte([]))
    }

    @Test func theSameNumberingChangesNothing() throws {
        let format = StreamFormat(codec: Self.opus96, headerExtensionIDs: [RTPExtensionURI.audioLevel: 2])
        let translation = try #require(HeaderTranslation(from: format, to: format))
        #expect(translation.isIdentity)
        let packet = RTPPacket(payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3, headerExtension: .oneByte([.init(id: 2, data: [1])]), payload: [1])
        #expect(try Self.translated(packet, by: translation) == packet)
    }

    /// Whatever the bytes, applying a translation stays inside the packet and never traps.
    @Test func arbitraryBytesNeverTrap() throws {
        let publisher = StreamFormat(codec: Self.opus96, headerExtensionIDs: [RTPExtensionURI.mid: 1, RTPExtensionURI.audioLevel: 2])
        let subscriber = StreamFormat(codec: Self.opus111, headerExtensionIDs: [RTPExtensionURI.audioLevel: 9])
        let translation = try #require(HeaderTranslation(from: publisher, to: subscriber))
        var random = SplitMix(seed: 22)
        for _ in 0..<20_000 {
            let length = Int(random.next() % 64)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if length > 0 { bytes[0] = 0x90 | bytes[0] & 0x0F }
            let profileAt = length > 0 ? 12 + Int(bytes[0] & 0x0F) * 4 : length
            if profileAt + 1 < length {
                (bytes[profileAt], bytes[profileAt + 1]) = random.next() % 2 == 0 ? (0xBE, 0xDE) : (0x10, 0x00)
            }
            var copy = bytes
            let after = copy.withUnsafeMutableBytes { translation.apply(to: $0, length: $0.count) }
            #expect(after == bytes.count, "no RED here: the length never changes")
        }
    }
}
