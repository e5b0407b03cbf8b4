import CaucusMedia
import Testing

@testable import CaucusServer

/// The routing computation on the media loop, driven directly: offers → slot plans, the
/// session's "who may receive what" → assignments → the routing table and rewritten packets.
@Suite struct SessionMediaRouterTests {
    /// An offer like aiortc's: one sendonly audio and video (with an RTX group), then receive-only
    /// sections for the slots.
    static func offer(audioSSRC: UInt32, videoSSRC: UInt32, audioSlots: Int = 2, videoSlots: Int = 2) -> SessionDescription {
        var lines = ["v=0", "o=- 1 1 IN IP4 0.0.0.0", "s=-", "t=0 0"]
        var mid = 0
        func section(_ kind: String, _ direction: String, _ extra: [String]) {
            lines += ["m=\(kind) 9 UDP/TLS/RTP/SAVPF 96", "a=mid:\(mid)", "a=\(direction)", "a=rtcp-mux"] + extra
            mid += 1
        }
        section("audio", "sendonly", ["a=ssrc:\(audioSSRC) cname:x"])
        section("video", "sendonly", ["a=ssrc-group:FID \(videoSSRC) \(videoSSRC + 1)", "a=ssrc:\(videoSSRC + 1) cname:x", "a=ssrc:\(videoSSRC) cname:x"])
        for _ in 0..<audioSlots { section("audio", "recvonly", []) }
        for _ in 0..<videoSlots { section("video", "recvonly", []) }
        return try! SessionDescription(parsing: lines.joined(separator: "\r\n"))
    }

    static func plan(audioSSRC: UInt32, videoSSRC: UInt32) -> MediaSlotPlan {
        var next: UInt32 = audioSSRC * 100
        return MediaSlotPlan(offer: offer(audioSSRC: audioSSRC, videoSSRC: videoSSRC)) {
            next += 1
            return next
        }
    }

    static func rtp(ssrc: UInt32, sequenceNumber: UInt16) -> [UInt8] {
        var packet: [UInt8] = [0x80, 96, UInt8(sequenceNumber >> 8), UInt8(sequenceNumber & 0xff), 0, 0, 0, 160]
        packet += withUnsafeBytes(of: ssrc.bigEndian, Array.init)
        return packet + [1, 2, 3]
    }

    /// Where one RTP packet from `ssrc` goes: (subscriber, outgoing SSRC).
    static func forwarded(_ router: SessionMediaRouter, from ssrc: UInt32, sequenceNumber: UInt16) -> Set<[UInt32]> {
        var out = Set<[UInt32]>()
        router.forward(rtp: rtp(ssrc: ssrc, sequenceNumber: sequenceNumber), arrival: .milliseconds(Int(sequenceNumber) * 20)) { user, packet in
            out.insert([UInt32(user), UInt32(packet[8]) << 24 | UInt32(packet[9]) << 16 | UInt32(packet[10]) << 8 | UInt32(packet[11])])
        }
        return out
    }

    @Test func anOfferBecomesSlotsAndPublications() {
        let plan = Self.plan(audioSSRC: 1, videoSSRC: 10)
        #expect(plan.publishedSSRCs == [.audio: 1, .video: 10])
        #expect(plan.receiveSlots.map(\.mid) == ["2", "3", "4", "5"])
        #expect(plan.receiveSlots.map(\.slot) == [
            SlotID(kind: .audio, index: 0), SlotID(kind: .audio, index: 1), SlotID(kind: .video, index: 0), SlotID(kind: .video, index: 1),
        ])
        #expect(plan.layout == SlotLayout(audio: 2, video: 2, screenShare: 0))
        #expect(Set(plan.sendingSSRCs.values).count == 4)
    }

    /// `screenShareMids` turns video sections into screen share, sending or receiving.
    @Test func screenShareSectionsAreNamedByMid() {
        var next: UInt32 = 0
        let plan = MediaSlotPlan(offer: Self.offer(audioSSRC: 1, videoSSRC: 10), screenShareMids: ["1", "5"]) {
            next += 1
            return next
        }
        #expect(plan.publishedSSRCs == [.audio: 1, .screenShare: 10])
        #expect(plan.receiveSlots.map(\.slot) == [
            SlotID(kind: .audio, index: 0), SlotID(kind: .audio, index: 1), SlotID(kind: .video, index: 0),
            SlotID(kind: .screenShare, index: 0),
        ])
    }

    /// Three users; 1 and 2 share a location, 3 is alone; then 3 joins them, then 1 leaves them.
    @Test func packetsGoExactlyWhereTheSessionSays() {
        let router = SessionMediaRouter()
        let plans = [1: Self.plan(audioSSRC: 1, videoSSRC: 10), 2: Self.plan(audioSSRC: 2, videoSSRC: 20), 3: Self.plan(audioSSRC: 3, videoSSRC: 30)]
        for (user, plan) in plans.sorted(by: { $0.key < $1.key }) { _ = router.add(user, plan: plan) }
        func both(_ user: Int) -> [PublishedStream] { [PublishedStream(publisher: user, kind: .audio), PublishedStream(publisher: user, kind: .video)] }
        func slotSSRC(_ user: Int, _ kind: StreamKind, _ index: Int) -> UInt32 {
            plans[user]!.receiveSlots.first { $0.slot == SlotID(kind: kind, index: index) }!.outgoingSSRC
        }

        let first = router.update(eligible: [1: both(2), 2: both(1), 3: []], connections: [:])
        #expect(first.keyframeRequests.map(\.ssrc).sorted() == [10, 20])
        #expect(Self.forwarded(router, from: 2, sequenceNumber: 1) == [[1, slotSSRC(1, .audio, 0)]])
        #expect(Self.forwarded(router, from: 10, sequenceNumber: 1) == [[2, slotSSRC(2, .video, 0)]])
        #expect(Self.forwarded(router, from: 3, sequenceNumber: 1).isEmpty)
        #expect(Self.forwarded(router, from: 11, sequenceNumber: 1).isEmpty, "an RTX SSRC is not routed")

        let moved = router.update(eligible: [1: both(2) + both(3), 2: both(1) + both(3), 3: both(1) + both(2)], connections: [:])
        #expect(moved.keyframeRequests.map(\.ssrc).sorted() == [10, 20, 30])
        #expect(Self.forwarded(router, from: 3, sequenceNumber: 2) == [[1, slotSSRC(1, .audio, 1)], [2, slotSSRC(2, .audio, 1)]])
        #expect(Self.forwarded(router, from: 2, sequenceNumber: 2) == [[1, slotSSRC(1, .audio, 0)], [3, slotSSRC(3, .audio, 1)]],
                "2 keeps its slot with 1, and fills 3's second")

        _ = router.update(eligible: [1: [], 2: both(3), 3: both(2)], connections: [:])
        #expect(Self.forwarded(router, from: 1, sequenceNumber: 3).isEmpty)
        #expect(Self.forwarded(router, from: 2, sequenceNumber: 3) == [[3, slotSSRC(3, .audio, 1)]])

        _ = router.remove(3)
        #expect(Self.forwarded(router, from: 2, sequenceNumber: 4).isEmpty)
        #expect(Self.forwarded(router, from: 3, sequenceNumber: 4).isEmpty, "a user without a peer publishes nothing")
    }

    /// A subscriber's PLI about a slot reaches the slot's current source.
    @Test func aPictureLossIndicationGoesToTheSlotsSource() {
        let router = SessionMediaRouter()
        let (one, two) = (Self.plan(audioSSRC: 1, videoSSRC: 10), Self.plan(audioSSRC: 2, videoSSRC: 20))
        _ = router.add(1, plan: one)
        _ = router.add(2, plan: two)
        _ = router.update(eligible: [1: [PublishedStream(publisher: 2, kind: .video)], 2: []], connections: [:])
        let slot = one.receiveSlots.first { $0.slot == SlotID(kind: .video, index: 0) }!.outgoingSSRC
        let pli = RTCPPacket.pictureLossIndication(senderSSRC: 5, mediaSSRC: slot).encoded()
        #expect(router.keyframeRequests(inRTCP: pli, from: 1).map { [$0.publisher, Int($0.ssrc)] } == [[2, 20]])
        #expect(router.keyframeRequests(inRTCP: pli, from: 2).isEmpty, "not one of 2's slots")
    }
}
