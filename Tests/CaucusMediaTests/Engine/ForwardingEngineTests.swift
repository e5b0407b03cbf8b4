import Testing

@testable import CaucusMedia
@testable import CaucusSFU
import CaucusMediaTestSupport

/// The routing computation on the media loop, driven directly: offers → slot plans, the
/// session's "who may receive what" → assignments → the routing table and rewritten packets.
@Suite struct ForwardingEngineTests {
    /// The numbering one kind of client gives its offer: payload types and extension IDs.
    struct Numbering {
        var opus: UInt8 = 96
        var video: UInt8 = 97
        var videoCodec = "VP8/90000"
        var videoParameters: String?
        var audioLevelID: UInt8 = 1
        var midID: UInt8 = 2
        /// The RTX payload type offered for the video codec (`apt`), if any.
        var rtx: UInt8?
        /// The transport-wide sequence number extension's ID, and `transport-cc` feedback, if offered.
        var transportCCID: UInt8?

        /// aiortc's numbering.
        static let aiortc = Numbering(audioLevelID: 2, midID: 1)
        /// Chromium's numbering.
        static let chromium = Numbering(opus: 111, video: 96, audioLevelID: 1, midID: 4)
    }

    /// An offer like aiortc's: one sendonly audio and video (with an RTX group), then receive-only
    /// sections for the slots.
    static func offer(
        audioSSRC: UInt32, videoSSRC: UInt32, audioSlots: Int = 2, videoSlots: Int = 2, numbering: Numbering = .aiortc
    ) -> SessionDescription {
        let mids = (0..<(2 + audioSlots + videoSlots)).map(String.init)
        var lines = ["v=0", "o=- 1 1 IN IP4 0.0.0.0", "s=-", "t=0 0", "a=group:BUNDLE \(mids.joined(separator: " "))"]
        var mid = 0
        func section(_ kind: String, _ direction: String, _ extra: [String]) {
            let payloadType = kind == "audio" ? numbering.opus : numbering.video
            let rtx = kind == "video" ? numbering.rtx : nil
            lines += [
                "m=\(kind) 9 UDP/TLS/RTP/SAVPF \(payloadType)\(rtx.map { " \($0)" } ?? "")", "a=mid:\(mid)", "a=\(direction)", "a=rtcp-mux",
                "a=ice-ufrag:peer", "a=ice-pwd:0123456789abcdefghijkl", "a=setup:actpass",
                "a=fingerprint:sha-256 " + Array(repeating: "AB", count: 32).joined(separator: ":"),
                "a=extmap:\(numbering.midID) urn:ietf:params:rtp-hdrext:sdes:mid",
            ]
            if let id = numbering.transportCCID {
                lines += ["a=extmap:\(id) \(RTPExtensionURI.transportWideCC)", "a=rtcp-fb:\(payloadType) transport-cc"]
            }
            if kind == "audio" {
                lines += ["a=extmap:\(numbering.audioLevelID) urn:ietf:params:rtp-hdrext:ssrc-audio-level", "a=rtpmap:\(payloadType) opus/48000/2"]
            } else {
                lines.append("a=rtpmap:\(payloadType) \(numbering.videoCodec)")
                if let parameters = numbering.videoParameters { lines.append("a=fmtp:\(payloadType) \(parameters)") }
                if let rtx { lines += ["a=rtpmap:\(rtx) rtx/90000", "a=fmtp:\(rtx) apt=\(payloadType)"] }
            }
            lines += extra
            mid += 1
        }
        section("audio", "sendonly", ["a=ssrc:\(audioSSRC) cname:x"])
        section("video", "sendonly", ["a=ssrc-group:FID \(videoSSRC) \(videoSSRC + 1)", "a=ssrc:\(videoSSRC + 1) cname:x", "a=ssrc:\(videoSSRC) cname:x"])
        for _ in 0..<audioSlots { section("audio", "recvonly", []) }
        for _ in 0..<videoSlots { section("video", "recvonly", []) }
        return try! SessionDescription(parsing: lines.joined(separator: "\r\n"))
    }

    /// The plan `caucus serve` makes of such an offer: its slots and publications, with the codecs
    /// and extension IDs its answer chose.
    static func plan(audioSSRC: UInt32, videoSSRC: UInt32, numbering: Numbering = .aiortc) -> MediaSlotPlan {
        plan(of: offer(audioSSRC: audioSSRC, videoSSRC: videoSSRC, numbering: numbering), firstSSRC: audioSSRC * 100)
    }

    /// The plan of any offer, its own SSRCs drawn from `firstSSRC` on.
    static func plan(of offer: SessionDescription, firstSSRC: UInt32) -> MediaSlotPlan {
        MediaSlotPlan.answered(offer, firstSSRC: firstSSRC)
    }

    static func rtp(ssrc: UInt32, sequenceNumber: UInt16) -> [UInt8] {
        var packet: [UInt8] = [0x80, 96, UInt8(sequenceNumber >> 8), UInt8(sequenceNumber & 0xff), 0, 0, 0, 160]
        packet += withUnsafeBytes(of: ssrc.bigEndian, Array.init)
        // A VP8 keyframe's first packet (RFC 7741: S set, partition 0; then P clear), so a video
        // slot waiting for a keyframe takes it.
        return packet + [0x10, 0x00, 3]
    }

    /// Where one RTP packet from `ssrc` goes: (subscriber, outgoing SSRC).
    static func forwarded(_ router: ForwardingEngine, from ssrc: UInt32, sequenceNumber: UInt16) -> Set<[UInt32]> {
        var out = Set<[UInt32]>()
        _ = router.forward(rtp: rtp(ssrc: ssrc, sequenceNumber: sequenceNumber), arrival: .milliseconds(Int(sequenceNumber) * 20)) { user, header, _ in
            out.insert([UInt32(user), header.ssrc])
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
        let router = ForwardingEngine()
        let plans = [1: Self.plan(audioSSRC: 1, videoSSRC: 10), 2: Self.plan(audioSSRC: 2, videoSSRC: 20), 3: Self.plan(audioSSRC: 3, videoSSRC: 30)]
        for (user, plan) in plans.sorted(by: { $0.key < $1.key }) { _ = router.add(user, plan: plan, now: .zero) }
        func both(_ user: Int) -> [PublishedStream] { [PublishedStream(publisher: user, kind: .audio), PublishedStream(publisher: user, kind: .video)] }
        func slotSSRC(_ user: Int, _ kind: StreamKind, _ index: Int) -> UInt32 {
            plans[user]!.receiveSlots.first { $0.slot == SlotID(kind: kind, index: index) }!.outgoingSSRC
        }

        let first = router.update(eligible: [1: both(2), 2: both(1), 3: []], now: .seconds(1))
        #expect(first.keyframeRequests.map(\.ssrc).sorted() == [10, 20])
        #expect(first.slotSwitches == 4, "1's and 2's first audio and video slots filled")
        #expect(Self.forwarded(router, from: 2, sequenceNumber: 1) == [[1, slotSSRC(1, .audio, 0)]])
        #expect(Self.forwarded(router, from: 10, sequenceNumber: 1) == [[2, slotSSRC(2, .video, 0)]])
        #expect(Self.forwarded(router, from: 3, sequenceNumber: 1).isEmpty)
        #expect(Self.forwarded(router, from: 11, sequenceNumber: 1).isEmpty, "an RTX SSRC is not routed")

        let moved = router.update(eligible: [1: both(2) + both(3), 2: both(1) + both(3), 3: both(1) + both(2)], now: .seconds(2))
        #expect(moved.keyframeRequests.map(\.ssrc).sorted() == [10, 20, 30])
        #expect(moved.slotSwitches == 8, "3's four slots filled, and 1's and 2's second audio and video slots")
        #expect(router.update(eligible: [1: both(2) + both(3), 2: both(1) + both(3), 3: both(1) + both(2)], now: .seconds(3)).slotSwitches == 0)
        #expect(Self.forwarded(router, from: 3, sequenceNumber: 2) == [[1, slotSSRC(1, .audio, 1)], [2, slotSSRC(2, .audio, 1)]])
        #expect(Self.forwarded(router, from: 2, sequenceNumber: 2) == [[1, slotSSRC(1, .audio, 0)], [3, slotSSRC(3, .audio, 1)]],
                "2 keeps its slot with 1, and fills 3's second")

        _ = router.update(eligible: [1: [], 2: both(3), 3: both(2)], now: .seconds(4))
        #expect(Self.forwarded(router, from: 1, sequenceNumber: 3).isEmpty)
        #expect(Self.forwarded(router, from: 2, sequenceNumber: 3) == [[3, slotSSRC(3, .audio, 1)]])

        _ = router.remove(3, now: .seconds(5))
        #expect(Self.forwarded(router, from: 2, sequenceNumber: 4).isEmpty)
        #expect(Self.forwarded(router, from: 3, sequenceNumber: 4).isEmpty, "a user without a peer publishes nothing")
    }

    /// Two users; 1 receives 2's video on its first video slot (after two packets of it).
    static func oneWatchingTwo() -> (ForwardingEngine, slot: UInt32, firstOut: UInt16) {
        let router = ForwardingEngine()
        let (one, two) = (Self.plan(audioSSRC: 1, videoSSRC: 10), Self.plan(audioSSRC: 2, videoSSRC: 20))
        _ = router.add(1, plan: one, now: .zero)
        _ = router.add(2, plan: two, now: .zero)
        _ = router.update(eligible: [1: [PublishedStream(publisher: 2, kind: .video)], 2: []], now: .zero)
        let slot = one.receiveSlots.first { $0.slot == SlotID(kind: .video, index: 0) }!.outgoingSSRC
        var firstOut: UInt16 = 0
        _ = router.forward(rtp: Self.rtp(ssrc: 20, sequenceNumber: 500), arrival: .zero) { _, header, _ in firstOut = header.sequenceNumber }
        _ = router.forward(rtp: Self.rtp(ssrc: 20, sequenceNumber: 501), arrival: .milliseconds(20)) { _, _, _ in }
        return (router, slot, firstOut)
    }

    /// A subscriber's PLI about a slot reaches the slot's current source.
    @Test func aPictureLossIndicationGoesToTheSlotsSource() throws {
        let (router, slot, _) = Self.oneWatchingTwo()
        let pli = RTCPPacket.pictureLossIndication(senderSSRC: 5, mediaSSRC: slot).encoded()
        let routed = router.route(rtcp: pli, from: 1, now: .zero)
        #expect(routed.rtcp.map(\.user) == [2])
        #expect(try routed.rtcp.map { try RTCPPacket.decodeCompound($0.rtcp) } == [[.pictureLossIndication(senderSSRC: 1, mediaSSRC: 20)]])
        #expect(router.route(rtcp: pli, from: 2, now: .zero).isEmpty, "not one of 2's slots")
    }

    /// A subscriber's NACK of a slot's numbers is answered from the cache, each packet as the slot
    /// sent it. A packet lost before the server is asked of the source as soon as the gap shows,
    /// with its own number, again on the timer while it is missing, and forwarded when it comes.
    @Test func aNackIsAnsweredFromTheCacheAndALossUpstreamIsAskedOfTheSource() throws {
        let (router, slot, firstOut) = Self.oneWatchingTwo()
        let upstreamNACK = try RTCPPacket.decodeCompound(RTCPPacket.genericNACK(RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 20, lost: [502])).encoded())
        // 502 never reaches the server; 503 does, and shows the gap.
        let feedback = router.forward(rtp: Self.rtp(ssrc: 20, sequenceNumber: 503), arrival: .milliseconds(60)) { _, _, _ in }
        #expect(feedback.map(\.user) == [2])
        #expect(try feedback.map { try RTCPPacket.decodeCompound($0.rtcp) } == [upstreamNACK])

        let nack = RTCPPacket.genericNACK(RTCPGenericNACK(senderSSRC: 5, mediaSSRC: slot, lost: [firstOut, firstOut &+ 1, firstOut &+ 2])).encoded()
        let routed = router.route(rtcp: nack, from: 1, now: .milliseconds(70))
        #expect(routed.retransmissions.map(\.subscriber) == [1, 1])
        #expect(routed.retransmissions.map(\.header) == [
            RewrittenHeader(ssrc: slot, sequenceNumber: firstOut, timestamp: 0),
            RewrittenHeader(ssrc: slot, sequenceNumber: firstOut &+ 1, timestamp: 0),
        ])
        #expect(routed.retransmissions.map(\.packet) == [Self.rtp(ssrc: 20, sequenceNumber: 500), Self.rtp(ssrc: 20, sequenceNumber: 501)])
        #expect(routed.rtcp.isEmpty, "502 is already asked for")

        #expect(router.tick(now: .milliseconds(80)).isEmpty, "asked 20 ms ago")
        let again = router.tick(now: .milliseconds(95))
        #expect(try again.map { try RTCPPacket.decodeCompound($0.rtcp) } == [upstreamNACK], "still missing after 30 ms")
        var repaired: [UInt16] = []
        _ = router.forward(rtp: Self.rtp(ssrc: 20, sequenceNumber: 502), arrival: .milliseconds(100)) { _, header, _ in repaired.append(header.sequenceNumber) }
        #expect(repaired == [firstOut &+ 2], "the retransmission fills the subscriber's gap")
        #expect(router.tick(now: .milliseconds(200)).isEmpty, "nothing missing any more")
        #expect(router.route(rtcp: nack, from: 1, now: .milliseconds(200)).retransmissions.count == 3)

        #expect(router.route(rtcp: nack, from: 2, now: .milliseconds(170)).isEmpty, "not one of 2's slots")
        let never = RTCPGenericNACK(senderSSRC: 5, mediaSSRC: slot, lost: [firstOut &+ 100])
        #expect(router.route(rtcp: RTCPPacket.genericNACK(never).encoded(), from: 1, now: .milliseconds(170)).isEmpty, "a number the slot never sent")
    }

    /// After a move, a NACK of packets the slot carried from its former source (of the room left
    /// behind) is not repaired: the subscriber would be shown that room again.
    @Test func aFormerSourcesPacketsAreNotRepaired() throws {
        let (router, slot, firstOut) = Self.oneWatchingTwo()
        _ = router.update(eligible: [1: [], 2: []], now: .seconds(1))
        let nack = RTCPPacket.genericNACK(RTCPGenericNACK(senderSSRC: 5, mediaSSRC: slot, lost: [firstOut, firstOut &+ 1])).encoded()
        #expect(router.route(rtcp: nack, from: 1, now: .seconds(1)).isEmpty)
    }

    /// A publisher's sender report reaches each slot its stream fills, as that slot's report;
    /// a report about a stream that is not the sender's own goes nowhere.
    @Test func aSenderReportReachesTheSlotsItsStreamFills() throws {
        let (router, slot, _) = Self.oneWatchingTwo()
        let report = RTCPSenderReport(ssrc: 20, ntpTimestamp: 0xABCD_0000_1234, rtpTimestamp: 160, packetCount: 2, octetCount: 6)
        let routed = router.route(rtcp: RTCPPacket.senderReport(report).encoded(), from: 2, now: .zero)
        #expect(routed.rtcp.map(\.user) == [1])
        let decoded = try RTCPPacket.decodeCompound(try #require(routed.rtcp.first).rtcp)
        guard case .senderReport(let translated) = decoded.first else {
            Issue.record("not a sender report: \(decoded)")
            return
        }
        #expect(translated.ssrc == slot && translated.ntpTimestamp == report.ntpTimestamp && translated.packetCount == 2)
        #expect(router.route(rtcp: RTCPPacket.senderReport(report).encoded(), from: 1, now: .zero).isEmpty, "1 does not send SSRC 20")
        let receiverOnly = RTCPPacket.receiverReport(RTCPReceiverReport(ssrc: 5, reports: [])).encoded()
        #expect(router.route(rtcp: receiverOnly, from: 1, now: .zero).isEmpty)
    }
}
