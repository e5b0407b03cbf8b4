import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// Each subscriber's own simulcast layer, from its own transport-cc feedback: two subscribers
/// of one simulcast publisher, one on a link that loses half of what it is sent; it moves to the
/// low layer (at its keyframe) while the other keeps the high one; once its link is calm it is
/// probed with repeats as RTX, and when the probe gets through it climbs back.
@Suite struct DownlinkRoutingTests {
    typealias Routing = ForwardingEngineTests
    static let withTransportCC = { var n = Routing.Numbering.chromium; n.transportCCID = 3; n.rtx = 97; return n }()

    /// A VP8 packet of the simulcast fixture's publisher: its RID (extension 10) on its first
    /// packets, a transport-wide number (extension 3) on all.
    static func layerPacket(ssrc: UInt32, sequenceNumber: UInt16, rid: String?, keyframe: Bool, size: Int) -> [UInt8] {
        var elements: [RTPHeaderExtensionElement] = [.init(id: 3, data: [0, 0])]
        if let rid { elements.append(.init(id: 10, data: Array(rid.utf8))) }
        let descriptor: [UInt8] = keyframe ? [0x10, 0x00] : [0x10, 0x01]
        return RTPPacket(
            payloadType: 96, sequenceNumber: sequenceNumber, timestamp: UInt32(sequenceNumber) * 1800, ssrc: ssrc,
            headerExtension: .oneByte(elements), payload: descriptor + [UInt8](repeating: 9, count: size - 2)
        ).encoded()
    }

    /// What the router sent each subscriber, as the media loop would: the slot's SSRC, and the
    /// subscriber's transport-wide number with its sending time and size.
    final class Sent {
        var ssrcs: [Int: [UInt32]] = [:]
        var stamps: [Int: [(sequenceNumber: UInt16, at: Duration, size: Int)]] = [:]
    }

    /// The two layers for `duration` from `start` at 50 packets a second each: "l" 300 bytes
    /// (120 kbit/s), "h" 1,200 (480 kbit/s); a keyframe every `keyframeEvery` packets.
    static func publish(
        _ router: ForwardingEngine, from start: Duration, for duration: Duration, sequence: inout UInt16, into sent: Sent,
        keyframeEvery: Int = 1000
    ) {
        var now = start
        while now < start + duration {
            sequence &+= 1
            let keyframe = Int(sequence) % keyframeEvery == 0
            for (ssrc, rid, size) in [(UInt32(501), "l", 300), (UInt32(502), "h", 1200)] {
                let packet = layerPacket(ssrc: ssrc, sequenceNumber: sequence, rid: sequence < 3 ? rid : nil, keyframe: keyframe, size: size)
                _ = router.observeSimulcast(packet, from: 2, now: now)
                _ = router.forward(rtp: packet, arrival: now) { subscriber, header, translation in
                    sent.ssrcs[subscriber, default: []].append(header.ssrc)
                    if let stamp = router.transportSequence(to: subscriber, size: packet.count, translation: translation, at: now) {
                        sent.stamps[subscriber, default: []].append((stamp, now, packet.count))
                    }
                }
            }
            now += .milliseconds(20)
        }
    }

    /// `user`'s feedback on what it was sent: every `lossEvery`-th packet missing, the rest
    /// arriving 30 ms after they were sent (on a clock of its own).
    static func feedback(_ router: ForwardingEngine, from user: Int, _ sent: Sent, lossEvery: Int?, at now: Duration) {
        let stamps = sent.stamps[user] ?? []
        sent.stamps[user] = []
        guard let first = stamps.first else { return }
        let reference = (DownlinkEstimator.microseconds(first.at) + 5_000_000) / 64_000
        var previous = reference * 64_000
        var deltas: [Int16?] = []
        for (index, stamp) in stamps.enumerated() {
            if let lossEvery, index % lossEvery == 0 {
                deltas.append(nil)
                continue
            }
            let arrival = DownlinkEstimator.microseconds(stamp.at) + 5_030_000
            deltas.append(Int16((arrival - previous) / 250))
            previous += (arrival - previous) / 250 * 250
        }
        let rtcp = RTCPTransportFeedback(
            senderSSRC: 77, mediaSSRC: 1, baseSequenceNumber: first.sequenceNumber, referenceTime: UInt32(reference), feedbackCount: 0,
            deltas: deltas
        ).encoded()
        _ = router.route(rtcp: rtcp, from: user, now: now)
    }

    @Test func eachSubscriberGetsTheLayerItsOwnLinkCarries() throws {
        let router = ForwardingEngine()
        let one = Routing.plan(audioSSRC: 1, videoSSRC: 10, numbering: Self.withTransportCC)
        let three = Routing.plan(audioSSRC: 3, videoSSRC: 30, numbering: Self.withTransportCC)
        _ = router.add(1, plan: one, now: .zero)
        _ = router.add(2, plan: try SimulcastRoutingTests.simulcastPlan(), now: .zero)
        _ = router.add(3, plan: three, now: .zero)
        let video = PublishedStream(publisher: 2, kind: .video)
        _ = router.update(eligible: [1: [video], 2: [], 3: [video]], now: .zero)
        #expect(router.downlinks[1] != nil && router.downlinks[3] != nil, "subscribers that report what arrives")
        let slot1 = one.receiveSlots.first { $0.slot == SlotID(kind: .video, index: 0) }!.outgoingSSRC
        let slot3 = three.receiveSlots.first { $0.slot == SlotID(kind: .video, index: 0) }!.outgoingSSRC

        // A second of both layers (keyframes first): "h" is the busiest, everyone gets it.
        let sent = Sent()
        var sequence: UInt16 = 0
        Self.publish(router, from: .milliseconds(1), for: .seconds(1), sequence: &sequence, into: sent, keyframeEvery: 1)
        _ = router.rankSimulcastLayers(now: .seconds(1) + .milliseconds(10))
        #expect(router.simulcast[video]?.rates[502].map { (440_000...520_000).contains($0) } == true, "\(router.simulcast[video]?.rates ?? [:])")
        sent.ssrcs = [:]
        sent.stamps = [:]
        Self.publish(router, from: .seconds(1) + .milliseconds(20), for: .milliseconds(200), sequence: &sequence, into: sent, keyframeEvery: 1)
        #expect(Set(sent.ssrcs[1] ?? []) == [slot1] && Set(sent.ssrcs[3] ?? []) == [slot3])
        // (The low layer's packet that came before the high one's keyframe still went.)
        for user in [1, 3] {
            #expect(sent.stamps[user]?.filter { $0.size > 1000 }.count == 10, "every copy of the high layer stamped")
            #expect(sent.stamps[user]?.count == sent.ssrcs[user]?.count)
        }

        // 1's link loses every second packet; 3's loses nothing. Each reports, the layers are chosen.
        var now = Duration.seconds(1) + .milliseconds(250)
        for _ in 0..<4 {
            Self.feedback(router, from: 1, sent, lossEvery: 2, at: now)
            Self.feedback(router, from: 3, sent, lossEvery: nil, at: now)
            Self.publish(router, from: now, for: .milliseconds(100), sequence: &sequence, into: sent)
            now += .milliseconds(100)
        }
        #expect(router.downlinks[1]!.estimator.estimate < 300_000, "\(router.downlinks[1]!.estimator.estimate)")
        #expect(router.downlinks[3]!.estimator.estimate > 400_000, "\(router.downlinks[3]!.estimator.estimate)")
        let choice = try #require(router.tickDownlinks(now: now).changes)
        #expect(choice.keyframeRequests.map(\.ssrc) == [501], "1 waits for the low layer's keyframe")
        #expect(router.downlinks[1]!.layers[video] == "l" && router.downlinks[3]!.layers[video] == "h")

        // At the low layer's keyframe 1 switches; 3 keeps the high layer.
        sent.ssrcs = [:]
        sent.stamps = [:]
        Self.publish(router, from: now, for: .milliseconds(100), sequence: &sequence, into: sent, keyframeEvery: 1)
        now += .milliseconds(100)
        let lowCopies = sent.stamps[1]!.filter { $0.size < 400 }.count
        #expect(lowCopies == 5 && sent.stamps[1]!.count == 5, "only the low layer goes to 1 (\(sent.stamps[1]!.map(\.size)))")
        #expect(sent.stamps[3]!.allSatisfy { $0.size > 1000 } && sent.stamps[3]!.count == 5)

        // 1's link is calm again: after a second without overuse it is probed, with repeats of
        // the low layer as RTX on its slot's RTX stream, each stamped.
        var probes: [ForwardingEngine.Copy] = []
        for _ in 0..<100 {
            Self.feedback(router, from: 1, sent, lossEvery: nil, at: now)
            Self.feedback(router, from: 3, sent, lossEvery: nil, at: now)
            Self.publish(router, from: now, for: .milliseconds(50), sequence: &sequence, into: sent)
            let (copies, _) = router.tickDownlinks(now: now)
            for copy in copies {
                #expect(copy.subscriber == 1 && copy.retransmittedAs != nil)
                let stamp = try #require(copy.transportSequence)
                sent.stamps[1, default: []].append((stamp, now, copy.packet.count))
            }
            probes += copies
            now += .milliseconds(50)
            if router.downlinks[1]!.layers[video] == "h" { break }
        }
        #expect(!probes.isEmpty)
        #expect(router.downlinks[1]!.layers[video] == "h", "the probe got through: back to the high layer")
        #expect(router.downlinks[3]!.layers[video] == "h")
    }

    /// Which layer a budget holds: the lowest before anything is known, the best that fits,
    /// the current one until the budget is a sixth below it, and a paused low layer waited for
    /// rather than traded for one that does not fit.
    @Test func aBudgetChoosesALayer() throws {
        var publication = SimulcastPublication(
            layers: ["h", "m", "l"], streamIDExtension: 10, repairedStreamIDExtension: nil, mediaPayloadType: 96)
        publication.ssrcs = ["l": 1, "m": 2, "h": 3]
        publication.rates = [1: 150_000, 2: 400_000, 3: 900_000]
        func layer(_ budget: Int, known: Bool = true, current: String?) -> String? {
            SubscriberDownlinks.layer(of: publication, budget: budget, known: known, current: current)?.rid
        }
        #expect(layer(0, known: false, current: "h") == "l", "nothing known of the link: the lowest")
        #expect(layer(1_000_000, current: "l") == "h")
        #expect(layer(500_000, current: "l") == "m")
        #expect(layer(100_000, current: "h") == "l", "none fits: the lowest")
        #expect(layer(800_000, current: "h") == "h", "a sixth below the current layer's rate: kept")
        #expect(layer(700_000, current: "h") == "m")
        #expect(SubscriberDownlinks.layer(of: publication, budget: 500_000, known: true, current: "l")?.better == 900_000)
        // "l" sent nothing last second: a budget that fits nothing keeps it rather than taking "h".
        publication.rates = [1: 0, 2: 0, 3: 900_000]
        #expect(layer(200_000, current: "l") == "l")
        #expect(layer(1_000_000, current: "l") == "h")
        publication.rates = [:]
        #expect(layer(1_000_000, current: "m") == "m", "nothing measured yet: unchanged")
    }

    /// Audio never yields: a subscriber whose link loses most of what it is sent (its estimate
    /// at the floor, below every video layer) still receives every audio packet, and the
    /// lowest video layer.
    @Test func audioIsForwardedWhateverTheEstimate() throws {
        let router = ForwardingEngine()
        let one = Routing.plan(audioSSRC: 1, videoSSRC: 10, numbering: Self.withTransportCC)
        let publisher = try SimulcastRoutingTests.simulcastPlan()
        _ = router.add(1, plan: one, now: .zero)
        _ = router.add(2, plan: publisher, now: .zero)
        _ = router.update(
            eligible: [1: [PublishedStream(publisher: 2, kind: .audio), PublishedStream(publisher: 2, kind: .video)], 2: []], now: .zero)
        let audioSSRC = try #require(publisher.publishedSSRCs[.audio])
        let sent = Sent()
        var sequence: UInt16 = 0
        Self.publish(router, from: .milliseconds(1), for: .seconds(1), sequence: &sequence, into: sent, keyframeEvery: 1)
        _ = router.rankSimulcastLayers(now: .seconds(1) + .milliseconds(10))
        var now = Duration.seconds(1) + .milliseconds(20)
        var audioSent = 0
        var audioReceived = 0
        for _ in 0..<20 {
            Self.feedback(router, from: 1, sent, lossEvery: 1, at: now)
            Self.publish(router, from: now, for: .milliseconds(100), sequence: &sequence, into: sent, keyframeEvery: 1)
            for step in 0..<5 {
                audioSent += 1
                let packet = RTPPacket(
                    payloadType: 111, sequenceNumber: UInt16(audioSent), timestamp: UInt32(audioSent) * 960, ssrc: audioSSRC, payload: [0xF8, 1, 2]
                ).encoded()
                _ = router.forward(rtp: packet, arrival: now + .milliseconds(step * 20)) { user, _, _ in
                    if user == 1 { audioReceived += 1 }
                }
            }
            _ = router.tickDownlinks(now: now)
            now += .milliseconds(100)
        }
        #expect(router.downlinks[1]!.estimator.estimate == DownlinkEstimator.Configuration.standard.minimum, "\(router.downlinks[1]!.estimator.estimate)")
        #expect(router.downlinks[1]!.layers[PublishedStream(publisher: 2, kind: .video)] == "l")
        #expect(audioReceived == audioSent, "every audio packet, whatever the estimate")
    }

    /// A subscriber that does not report what arrives gets the publication's busiest layer.
    @Test func aSubscriberWithoutFeedbackHasNoEstimate() {
        let router = ForwardingEngine()
        _ = router.add(1, plan: Routing.plan(audioSSRC: 1, videoSSRC: 10), now: .zero)
        #expect(router.downlinks.isEmpty)
        _ = router.add(3, plan: Routing.plan(audioSSRC: 3, videoSSRC: 30, numbering: Self.withTransportCC), now: .zero)
        #expect(router.downlinks.users == [3])
        _ = router.remove(3, now: .seconds(1))
        #expect(router.downlinks.isEmpty, "a departed subscriber's estimate goes with it")
    }
}
