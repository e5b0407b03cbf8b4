import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// Subscribers of another client stack than their publisher's: each copy leaves with the
/// payload type and header-extension IDs of the *subscriber's* answer, and a subscriber whose
/// answer cannot carry the publisher's codec gets nothing in that slot and is told why.
@Suite struct MixedClientRoutingTests {
    typealias Router = ForwardingEngineTests

    /// An RTP packet as a publisher numbered `numbering` sends it: its payload type, its MID and
    /// (for audio) its audio level.
    static func packet(ssrc: UInt32, sequenceNumber: UInt16, audio: Bool, numbering: Router.Numbering) -> [UInt8] {
        var elements = [RTPHeaderExtensionElement(id: numbering.midID, data: Array(audio ? "0".utf8 : "1".utf8))]
        if audio { elements.append(RTPHeaderExtensionElement(id: numbering.audioLevelID, data: [0x85])) }
        return RTPPacket(
            payloadType: audio ? numbering.opus : numbering.video, sequenceNumber: sequenceNumber, timestamp: 960, ssrc: ssrc,
            headerExtension: RTPHeaderExtension(elements: elements), payload: [0x10, 0x00, 7]
        ).encoded()
    }

    /// What `subscriber` decodes of one packet from `ssrc`: the copy as it leaves the server.
    static func copies(_ router: ForwardingEngine, of packet: [UInt8]) throws -> [Int: RTPPacket] {
        var copies: [Int: [UInt8]] = [:]
        _ = router.forward(rtp: packet, arrival: .zero) { subscriber, header, translation in
            var copy = packet
            let length = copy.withUnsafeMutableBytes { bytes in
                header.write(into: bytes)
                return translation.apply(to: bytes, length: bytes.count)
            }
            if let length { copies[subscriber] = Array(copy[..<length]) }
        }
        return try copies.mapValues { try RTPPacket(decoding: $0) }
    }

    /// aiortc (user 1) and Chromium (user 2) number Opus, VP8 and the extensions differently.
    static func aiortcAndChromium() -> ForwardingEngine {
        let router = ForwardingEngine()
        _ = router.add(1, plan: Router.plan(audioSSRC: 1, videoSSRC: 10, numbering: .aiortc), now: .zero)
        _ = router.add(2, plan: Router.plan(audioSSRC: 2, videoSSRC: 20, numbering: .chromium), now: .zero)
        let both = { (user: Int) in [PublishedStream(publisher: user, kind: .audio), PublishedStream(publisher: user, kind: .video)] }
        _ = router.update(eligible: [1: both(2), 2: both(1)], now: .zero)
        return router
    }

    @Test func audioCrossesStacksInTheSubscribersNumbering() throws {
        let router = Self.aiortcAndChromium()
        let toChromium = try #require(try Self.copies(router, of: Self.packet(ssrc: 1, sequenceNumber: 7, audio: true, numbering: .aiortc))[2])
        #expect(toChromium.payloadType == Router.Numbering.chromium.opus)
        #expect(toChromium.headerExtension?.elements == [RTPHeaderExtensionElement(id: Router.Numbering.chromium.audioLevelID, data: [0x85])],
                "the level under Chromium's ID; the publisher's MID blanked")
        #expect(toChromium.payload == [0x10, 0x00, 7])

        let toAiortc = try #require(try Self.copies(router, of: Self.packet(ssrc: 2, sequenceNumber: 7, audio: true, numbering: .chromium))[1])
        #expect(toAiortc.payloadType == Router.Numbering.aiortc.opus)
        #expect(toAiortc.headerExtension?.elements == [RTPHeaderExtensionElement(id: Router.Numbering.aiortc.audioLevelID, data: [0x85])])
    }

    @Test func videoCrossesStacksInTheSubscribersNumbering() throws {
        let router = Self.aiortcAndChromium()
        let toChromium = try #require(try Self.copies(router, of: Self.packet(ssrc: 10, sequenceNumber: 3, audio: false, numbering: .aiortc))[2])
        #expect(toChromium.payloadType == Router.Numbering.chromium.video)
        #expect(toChromium.headerExtension?.elements == [], "the MID is padding now")
        let toAiortc = try #require(try Self.copies(router, of: Self.packet(ssrc: 20, sequenceNumber: 3, audio: false, numbering: .chromium))[1])
        #expect(toAiortc.payloadType == Router.Numbering.aiortc.video)
    }

    /// A VP8-only subscriber of an H.264-only publisher: the video is never sent (it could not be
    /// decoded), the slot map names it as unplayable for its codec, and the audio still flows.
    @Test func aCodecTheSubscriberLacksIsNeverSentAndTheSlotMapSaysWhy() throws {
        let router = ForwardingEngine()
        var h264 = Router.Numbering.chromium
        h264.videoCodec = "H264/90000"
        h264.videoParameters = "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f"
        _ = router.add(1, plan: Router.plan(audioSSRC: 1, videoSSRC: 10, numbering: .aiortc), now: .zero)
        _ = router.add(2, plan: Router.plan(audioSSRC: 2, videoSSRC: 20, numbering: h264), now: .zero)
        let both = { (user: Int) in [PublishedStream(publisher: user, kind: .audio), PublishedStream(publisher: user, kind: .video)] }
        _ = router.update(eligible: [1: both(2), 2: both(1)], now: .zero)

        #expect(try Self.copies(router, of: Self.packet(ssrc: 20, sequenceNumber: 1, audio: false, numbering: h264)).isEmpty)
        #expect(try Self.copies(router, of: Self.packet(ssrc: 10, sequenceNumber: 1, audio: false, numbering: .aiortc)).isEmpty,
                "nor the reverse: user 2's slots are H.264")
        #expect(try Self.copies(router, of: Self.packet(ssrc: 2, sequenceNumber: 1, audio: true, numbering: h264)).keys.sorted() == [1])

        let map = try #require(router.subscribers[1]?.currentMap)
        #expect(map.unplayable == [PublishedStream(publisher: 2, kind: .video)])
        #expect(map.slots.filter { $0.kind == .video }.allSatisfy { $0.publisher == nil })
        #expect(map.slots.contains { $0.kind == .audio && $0.publisher == 2 })
    }
}
