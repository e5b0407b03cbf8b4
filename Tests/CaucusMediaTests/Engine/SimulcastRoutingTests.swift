import Foundation
import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// A simulcast publisher through the router: its layers' SSRCs learned from the RID extension,
/// the layer carrying the most bytes forwarded, a switch of layer at the new layer's keyframe.
@Suite struct SimulcastRoutingTests {
    typealias Routing = ForwardingEngineTests

    /// Chromium's simulcast offer, its SSRCs unnamed (the fixture), and the plan made of it.
    static func simulcastPlan() throws -> MediaSlotPlan {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("CaucusMediaTests/Fixtures/chromium-simulcast-offer.sdp")
        return Routing.plan(of: try SessionDescription(parsing: String(contentsOf: url, encoding: .utf8)), firstSSRC: 7000)
    }

    /// A VP8 packet of `rid` (extension 10 in Chromium's offer) on `ssrc`; a keyframe start or not;
    /// `size` bytes of payload.
    static func layerPacket(ssrc: UInt32, sequenceNumber: UInt16, rid: String?, keyframe: Bool = true, size: Int = 3, repairs: String? = nil) -> [UInt8] {
        var elements: [RTPHeaderExtensionElement] = []
        if let rid { elements.append(.init(id: 10, data: Array(rid.utf8))) }
        if let repairs { elements.append(.init(id: 11, data: Array(repairs.utf8))) }
        let descriptor: [UInt8] = keyframe ? [0x10, 0x00] : [0x10, 0x01]
        return RTPPacket(
            payloadType: 96, sequenceNumber: sequenceNumber, timestamp: UInt32(sequenceNumber) * 3000, ssrc: ssrc,
            headerExtension: elements.isEmpty ? nil : .oneByte(elements),
            payload: descriptor + [UInt8](repeating: 9, count: max(size - 2, 1))
        ).encoded()
    }

    /// 1 watches 2, who publishes simulcast.
    static func watching() throws -> (ForwardingEngine, slot: UInt32) {
        let router = ForwardingEngine()
        let one = Routing.plan(audioSSRC: 1, videoSSRC: 10)
        _ = router.add(1, plan: one, now: .zero)
        _ = router.add(2, plan: try simulcastPlan(), now: .zero)
        _ = router.update(eligible: [1: [PublishedStream(publisher: 2, kind: .video)], 2: []], now: .zero)
        return (router, one.receiveSlots.first { $0.slot == SlotID(kind: .video, index: 0) }!.outgoingSSRC)
    }

    static func forwarded(_ router: ForwardingEngine, _ packet: [UInt8], from user: Int = 2, at now: Duration) -> [UInt32] {
        _ = router.observeSimulcast(packet, from: user, now: now)
        var out: [UInt32] = []
        _ = router.forward(rtp: packet, arrival: now) { _, header, _ in out.append(header.ssrc) }
        return out
    }

    @Test func aSimulcastOfferPublishesItsLayers() throws {
        let plan = try Self.simulcastPlan()
        #expect(plan.publishedLayers == [.video: ["h", "m", "l"]])
        #expect(plan.publishedSSRCs[.video] == nil && plan.publishedSSRCs[.audio] != nil)
    }

    @Test func layersAreLearnedFromTheirFirstPacketAndTheBusiestIsForwarded() throws {
        let (router, slot) = try Self.watching()
        #expect(Self.forwarded(router, Self.layerPacket(ssrc: 500, sequenceNumber: 1, rid: nil), at: .zero).isEmpty, "no RID: not learned")
        let first = router.observeSimulcast(Self.layerPacket(ssrc: 501, sequenceNumber: 1, rid: "l"), from: 2, now: .milliseconds(1))
        #expect(first?.keyframeRequests.map(\.ssrc) == [501], "the first layer known is forwarded, its keyframe asked for")
        #expect(Self.forwarded(router, Self.layerPacket(ssrc: 501, sequenceNumber: 2, rid: "l"), at: .milliseconds(2)) == [slot])
        #expect(Self.forwarded(router, Self.layerPacket(ssrc: 502, sequenceNumber: 1, rid: "h", size: 1000), at: .milliseconds(3)).isEmpty,
                "a second layer is learned, not forwarded yet")
        #expect(Self.forwarded(router, Self.layerPacket(ssrc: 503, sequenceNumber: 1, rid: "q"), from: 2, at: .milliseconds(4)).isEmpty, "not a layer of the offer")
        #expect(router.simulcast.layerStreams.keys.sorted() == [501, 502])

        // Over the next second "h" carries far more: it takes over at its next keyframe.
        var lSequence: UInt16 = 3
        for index in 0..<20 {
            lSequence += 1
            _ = Self.forwarded(router, Self.layerPacket(ssrc: 501, sequenceNumber: lSequence, rid: nil, keyframe: false, size: 100), at: .milliseconds(10 + index))
            _ = Self.forwarded(router, Self.layerPacket(ssrc: 502, sequenceNumber: UInt16(2 + index), rid: nil, keyframe: false, size: 1000), at: .milliseconds(10 + index))
        }
        let ranked = try #require(router.rankSimulcastLayers(now: .seconds(1)))
        #expect(ranked.keyframeRequests.map(\.ssrc) == [502])
        #expect(Self.forwarded(router, Self.layerPacket(ssrc: 502, sequenceNumber: 30, rid: nil, keyframe: false), at: .milliseconds(1001)).isEmpty,
                "not before the new layer's keyframe")
        #expect(Self.forwarded(router, Self.layerPacket(ssrc: 501, sequenceNumber: lSequence + 1, rid: nil, keyframe: false), at: .milliseconds(1002)) == [slot],
                "the old layer until then")
        #expect(Self.forwarded(router, Self.layerPacket(ssrc: 502, sequenceNumber: 31, rid: nil), at: .milliseconds(1003)) == [slot])
        #expect(Self.forwarded(router, Self.layerPacket(ssrc: 501, sequenceNumber: lSequence + 2, rid: nil, keyframe: false), at: .milliseconds(1004)).isEmpty)
        #expect(router.rankSimulcastLayers(now: .milliseconds(1500)) == nil, "ranked at most once a second")
    }

    /// A layer's RTX SSRC is learned from the repaired-stream ID and restores to the layer.
    @Test func aLayersRepairsAreRestored() throws {
        let (router, _) = try Self.watching()
        _ = router.observeSimulcast(Self.layerPacket(ssrc: 501, sequenceNumber: 1, rid: "l"), from: 2, now: .zero)
        let repair = RTPPacket(
            payloadType: 97, sequenceNumber: 77, timestamp: 0, ssrc: 601, headerExtension: .oneByte([.init(id: 11, data: Array("l".utf8))]),
            payload: [0, 1, 0x10, 0x00, 9]
        ).encoded()
        #expect(router.observeSimulcast(repair, from: 2, now: .zero) == nil)
        let restored = try RTPPacket(decoding: try #require(router.restoringRetransmission(repair)))
        #expect(restored.ssrc == 501 && restored.sequenceNumber == 1 && restored.payload == [0x10, 0x00, 9])
        _ = router.remove(2, now: .seconds(1))
        #expect(router.simulcast.isEmpty && router.simulcast.layerStreams.isEmpty, "a departed publisher's layers are forgotten")
    }
}
