import CaucusMedia
import CaucusSFU
import Testing

/// Redundant audio (RFC 2198) from a publisher that sends it: passed on renumbered to a
/// subscriber that negotiated RED, reduced to its primary encoding for one that did not.
@Suite struct RedundantAudioTests {
    /// Chromium's numbering: Opus 111, RED 63 (`111/111`), audio level as extension 1.
    static let chromium = StreamFormat(
        codec: SDPCodec(payloadType: 111, name: "opus", clockRate: 48000, channels: 2),
        headerExtensionIDs: [RTPExtensionURI.audioLevel: 1], redundancyPayloadType: 63)
    /// Another numbering with RED: Opus 96, RED 120.
    static let otherWithRED = StreamFormat(
        codec: SDPCodec(payloadType: 96, name: "opus", clockRate: 48000, channels: 2),
        headerExtensionIDs: [RTPExtensionURI.audioLevel: 3], redundancyPayloadType: 120)
    /// aiortc's kind: Opus 96, no RED.
    static let withoutRED = StreamFormat(
        codec: SDPCodec(payloadType: 96, name: "opus", clockRate: 48000, channels: 2),
        headerExtensionIDs: [RTPExtensionURI.audioLevel: 3])

    /// A RED payload: each redundant block (payload type, timestamp offset, data), then the
    /// primary (payload type, data).
    static func redPayload(redundant: [(type: UInt8, offset: UInt16, data: [UInt8])], primary: (type: UInt8, data: [UInt8])) -> [UInt8] {
        var headers: [UInt8] = []
        for block in redundant {
            let length = UInt16(block.data.count)
            headers += [0x80 | block.type, UInt8(block.offset >> 6), UInt8(block.offset & 0x3F) << 2 | UInt8(length >> 8), UInt8(length & 0xFF)]
        }
        headers.append(primary.type)
        return headers + redundant.flatMap(\.data) + primary.data
    }

    static func packet(payloadType: UInt8, payload: [UInt8], csrcs: [UInt32] = [], padding: UInt8 = 0) -> RTPPacket {
        RTPPacket(
            marker: false, payloadType: payloadType, sequenceNumber: 7, timestamp: 9600, ssrc: 5, csrcs: csrcs,
            headerExtension: .oneByte([.init(id: 1, data: [0x85])]), payload: payload, paddingLength: padding)
    }

    /// The copy as it leaves the server; nil when it is not sent.
    static func forwarded(_ packet: RTPPacket, from source: StreamFormat, to destination: StreamFormat) throws -> RTPPacket? {
        let translation = try #require(HeaderTranslation(from: source, to: destination))
        var bytes = packet.encoded()
        guard let length = bytes.withUnsafeMutableBytes({ translation.apply(to: $0, length: $0.count) }) else { return nil }
        return try RTPPacket(decoding: Array(bytes[..<length]))
    }

    @Test func aSubscriberWithoutREDGetsThePrimaryAlone() throws {
        let payload = Self.redPayload(redundant: [(111, 960, [1, 2, 3])], primary: (111, [9, 9, 9, 9]))
        let out = try #require(try Self.forwarded(Self.packet(payloadType: 63, payload: payload), from: Self.chromium, to: Self.withoutRED))
        #expect(out.payloadType == 96)
        #expect(out.payload == [9, 9, 9, 9])
        #expect(out.headerExtension == .oneByte([.init(id: 3, data: [0x85])]))
        #expect(out.sequenceNumber == 7 && out.timestamp == 9600)
    }

    @Test func strippingSkipsEveryRedundantBlockAndDropsPadding() throws {
        let payload = Self.redPayload(redundant: [(111, 1920, [1, 1]), (111, 960, [2, 2, 2])], primary: (111, [7, 8]))
        let packet = Self.packet(payloadType: 63, payload: payload, csrcs: [44], padding: 4)
        let out = try #require(try Self.forwarded(packet, from: Self.chromium, to: Self.withoutRED))
        #expect(out.payload == [7, 8] && out.paddingLength == 0 && out.csrcs == [44])
    }

    @Test func aSubscriberWithREDGetsEveryBlockInItsOwnNumbers() throws {
        let payload = Self.redPayload(redundant: [(111, 960, [1, 2, 3])], primary: (111, [9, 9]))
        let out = try #require(try Self.forwarded(Self.packet(payloadType: 63, payload: payload), from: Self.chromium, to: Self.otherWithRED))
        #expect(out.payloadType == 120)
        #expect(out.payload == Self.redPayload(redundant: [(96, 960, [1, 2, 3])], primary: (96, [9, 9])))
    }

    @Test func plainOpusFromAREDPublisherStaysPlain() throws {
        let out = try #require(try Self.forwarded(Self.packet(payloadType: 111, payload: [4, 4]), from: Self.chromium, to: Self.withoutRED))
        #expect(out.payloadType == 96 && out.payload == [4, 4])
        let toRED = try #require(try Self.forwarded(Self.packet(payloadType: 96, payload: [4, 4]), from: Self.withoutRED, to: Self.chromium))
        #expect(toRED.payloadType == 111 && toRED.payload == [4, 4], "a publisher without RED reaches a RED subscriber as Opus")
    }

    @Test func theSameNumberingWithREDChangesNothing() throws {
        let translation = try #require(HeaderTranslation(from: Self.chromium, to: Self.chromium))
        #expect(translation.isIdentity)
        let toOther = try #require(HeaderTranslation(from: Self.chromium, to: StreamFormat(codec: Self.chromium.codec, headerExtensionIDs: Self.chromium.headerExtensionIDs)))
        #expect(!toOther.isIdentity, "RED must be stripped for a subscriber without it")
    }

    /// Nothing a subscriber could decode: never sent.
    @Test func malformedREDIsNotSent() throws {
        let blockPastTheEnd: [UInt8] = [0x80 | 111, 0, 0, 50, 111, 1, 2]
        let primaryNotOpus = Self.redPayload(redundant: [(111, 960, [1])], primary: (13, [5]))
        let emptyPrimary = Self.redPayload(redundant: [(111, 960, [1, 2])], primary: (111, []))
        let headersOnly: [UInt8] = [0x80 | 111, 0, 0]
        for payload in [blockPastTheEnd, primaryNotOpus, emptyPrimary, headersOnly, []] as [[UInt8]] {
            #expect(try Self.forwarded(Self.packet(payloadType: 63, payload: payload), from: Self.chromium, to: Self.withoutRED) == nil, "\(payload)")
        }
        #expect(try Self.forwarded(Self.packet(payloadType: 63, payload: headersOnly), from: Self.chromium, to: Self.otherWithRED) == nil)
    }

    /// Whatever follows a RED payload type, applying a translation stays inside the packet,
    /// never grows it and never traps.
    @Test func arbitraryREDBytesNeverTrap() throws {
        var random = SplitMix(seed: 2198)
        for destination in [Self.withoutRED, Self.otherWithRED] {
            let translation = try #require(HeaderTranslation(from: Self.chromium, to: destination))
            for _ in 0..<20_000 {
                let length = 12 + Int(random.next() % 40)
                var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                bytes[0] = 0x80 | bytes[0] & 0x3F
                bytes[1] = bytes[1] & 0x80 | 63
                let out = bytes.withUnsafeMutableBytes { translation.apply(to: $0, length: $0.count) }
                #expect(out.map { $0 >= 12 && $0 <= length } ?? true)
            }
        }
    }
}
