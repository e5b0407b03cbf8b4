import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// Loss repaired whatever the subscriber's stack: repairs leave in the form it takes (RTX until
/// its NACKs show it drops them, then on the slot's own SSRC), and a loss the cache cannot
/// repair asks the publisher for a keyframe on the subscriber's behalf, spaced.
@Suite struct LossRepairRoutingTests {
    typealias Routing = ForwardingEngineTests
    typealias RTX = RetransmissionRoutingTests

    static func nack(_ lost: [UInt16], slot: UInt32) -> [UInt8] {
        RTCPPacket.genericNACK(RTCPGenericNACK(senderSSRC: 5, mediaSSRC: slot, lost: lost)).encoded()
    }

    static func keyframeRequests(in rtcp: [(user: Int, rtcp: [UInt8])]) throws -> [(user: Int, ssrc: UInt32)] {
        try rtcp.flatMap { routed in
            try RTCPPacket.decodeCompound(routed.rtcp).compactMap { packet -> (user: Int, ssrc: UInt32)? in
                guard case .pictureLossIndication(_, let ssrc) = packet else { return nil }
                return (routed.user, ssrc)
            }
        }
    }

    /// 1 asks, NACK after NACK, for every repair again, as aiortc does with several video
    /// receivers (it drops RTX from an SSRC it routes by payload type): after a few NACKs its
    /// repairs leave on the slot's own SSRC, twice each, and its slots are no longer probed
    /// with RTX.
    @Test func aSubscriberThatDropsRTXRepairsGetsThemOnTheSlotsOwnSSRC() throws {
        let (router, one, _, firstOut) = RTX.twoWatchingOne()
        let slot = try #require(one.receiveSlots.first { $0.slot == SlotID(kind: .video, index: 0) })
        var sequence: UInt16 = 502
        var missing: [UInt16] = []
        var forms: [Bool] = []  // whether each NACK's repairs were RTX
        for round in 1...8 {
            let now = Duration.milliseconds(100 * round)
            _ = router.forward(rtp: Routing.rtp(ssrc: 20, sequenceNumber: sequence), arrival: now) { _, _, _ in }
            // The subscriber lost the packet just forwarded, and never takes an RTX repair.
            missing.append(firstOut[1]! &+ (sequence - 500))
            sequence += 1
            let repairs = router.route(rtcp: Self.nack(missing, slot: slot.outgoingSSRC), from: 1, now: now).retransmissions
            let onRTX = repairs.allSatisfy { $0.retransmittedAs != nil }
            // Once it is known to drop RTX, twice each: it asks once per gap.
            #expect(
                repairs.map(\.header.sequenceNumber).sorted() == (onRTX ? missing : missing + missing).sorted(),
                "every missing number repaired, round \(round)")
            forms.append(onRTX)
            let plain = repairs.filter { $0.retransmittedAs == nil }
            #expect(plain.allSatisfy { $0.header.ssrc == slot.outgoingSSRC })
            // A repair on the slot's own SSRC is taken.
            missing.removeAll { number in plain.contains { $0.header.sequenceNumber == number } }
        }
        let switched = try #require(forms.firstIndex(of: false), "repairs left RTX: \(forms)")
        #expect(switched <= 4 && forms.prefix(switched).allSatisfy { $0 } && forms.suffix(from: switched).allSatisfy { !$0 })
        #expect(missing.isEmpty, "every gap filled once repairs came on the slot's SSRC")
        #expect(router.subscribers[1]!.retransmissionStreams.isEmpty, "no RTX stream left to probe with")
    }

    /// A subscriber whose NACKs stop listing what was repaired keeps its RTX stream.
    @Test func aSubscriberThatTakesRTXRepairsKeepsThem() throws {
        let (router, one, _, firstOut) = RTX.twoWatchingOne()
        let slot = try #require(one.receiveSlots.first { $0.slot == SlotID(kind: .video, index: 0) })
        var sequence: UInt16 = 502
        for round in 1...12 {
            let now = Duration.milliseconds(100 * round)
            _ = router.forward(rtp: Routing.rtp(ssrc: 20, sequenceNumber: sequence), arrival: now) { _, _, _ in }
            let lost = firstOut[1]! &+ (sequence - 500)
            sequence += 1
            let repairs = router.route(rtcp: Self.nack([lost], slot: slot.outgoingSSRC), from: 1, now: now).retransmissions
            #expect(repairs.count == 1 && repairs[0].retransmittedAs?.ssrc == slot.retransmissionSSRC, "round \(round)")
        }
        #expect(router.subscribers[1]!.retransmissionAcceptance.verdict == .accepts)
    }

    /// A NACK of a packet the cache no longer holds: the publisher is asked for it, and for a
    /// keyframe on the subscriber's behalf — once per spacing, however often it is asked.
    @Test func aLossTheCacheCannotRepairAsksForAKeyframe() throws {
        let (router, one, _, firstOut) = RTX.twoWatchingOne()
        let slot = try #require(one.receiveSlots.first { $0.slot == SlotID(kind: .video, index: 0) })
        let count = RetransmissionCache.capacity + 10
        for offset in 0..<count {
            _ = router.forward(rtp: Routing.rtp(ssrc: 20, sequenceNumber: 502 &+ UInt16(offset)), arrival: .milliseconds(30)) { _, _, _ in }
        }
        let tooOld = Self.nack([firstOut[1]!], slot: slot.outgoingSSRC)
        let first = router.route(rtcp: tooOld, from: 1, now: .seconds(1))
        #expect(first.retransmissions.isEmpty)
        #expect(try Self.keyframeRequests(in: first.rtcp).map(\.ssrc) == [20] && first.rtcp.allSatisfy { $0.user == 2 })
        let soon = router.route(rtcp: tooOld, from: 1, now: .seconds(1) + KeyframeRequests.onBehalfSpacing / 2)
        #expect(try Self.keyframeRequests(in: soon.rtcp).isEmpty, "spaced")
        // Even once a keyframe came (no request outstanding), the spacing holds.
        _ = router.forward(rtp: Routing.rtp(ssrc: 20, sequenceNumber: 502 &+ UInt16(count)), arrival: .seconds(1) + .milliseconds(300)) { _, _, _ in }
        let stillSoon = router.route(rtcp: tooOld, from: 1, now: .seconds(1) + .milliseconds(400))
        #expect(try Self.keyframeRequests(in: stillSoon.rtcp).isEmpty, "spaced after a keyframe too")
        let later = router.route(rtcp: tooOld, from: 1, now: .seconds(1) + KeyframeRequests.onBehalfSpacing)
        #expect(try Self.keyframeRequests(in: later.rtcp).map(\.ssrc) == [20])
    }

    /// A packet lost on its way in and never sent again (its asks spent): its gap stays open for
    /// every subscriber, so the server asks for a keyframe.
    @Test func aGapThePublisherNeverFillsAsksForAKeyframe() throws {
        let (router, _, _, _) = RTX.twoWatchingOne()
        let gap = router.forward(rtp: Routing.rtp(ssrc: 20, sequenceNumber: 503), arrival: .milliseconds(40)) { _, _, _ in }
        #expect(gap.count == 1, "502 asked for at once")
        var keyframes: [(user: Int, ssrc: UInt32)] = []
        var ticks = 0
        var now = Duration.milliseconds(40)
        while keyframes.isEmpty, ticks < 20 {
            now += UpstreamLoss.retryInterval
            ticks += 1
            keyframes = try Self.keyframeRequests(in: router.tick(now: now))
        }
        #expect(keyframes.count == 1 && keyframes[0].user == 2 && keyframes[0].ssrc == 20)
        #expect(ticks == UpstreamLoss.maximumAsks, "once its asks are spent, not before")
    }
}

/// After a switch to another source (a move to another room), a NACK of the earlier source's
/// packets is not repaired; the slot's numbers jump past them and the new source is asked for
/// a keyframe.
@Suite struct StaleNumbersRoutingTests {
    typealias Routing = ForwardingEngineTests

    @Test func aNACKOfAnEarlierSourcesPacketsMakesTheSlotJumpAndAsksForAKeyframe() throws {
        let router = ForwardingEngine()
        let one = Routing.plan(audioSSRC: 1, videoSSRC: 10)
        for (user, plan) in [(1, one), (2, Routing.plan(audioSSRC: 2, videoSSRC: 20)), (3, Routing.plan(audioSSRC: 3, videoSSRC: 30))] {
            _ = router.add(user, plan: plan, now: .zero)
        }
        _ = router.update(eligible: [1: [PublishedStream(publisher: 2, kind: .video)], 2: [], 3: []], now: .zero)
        var sent: [UInt16] = []
        for number in UInt16(500)...502 {
            _ = router.forward(rtp: Routing.rtp(ssrc: 20, sequenceNumber: number), arrival: .milliseconds(Int(number) - 500)) { _, header, _ in
                sent.append(header.sequenceNumber)
            }
        }
        // 1 moves where only 3 publishes: 3's keyframe fills the slot.
        _ = router.update(eligible: [1: [PublishedStream(publisher: 3, kind: .video)], 2: [], 3: []], now: .seconds(1))
        var first: UInt16?
        _ = router.forward(rtp: Routing.rtp(ssrc: 30, sequenceNumber: 7), arrival: .seconds(1)) { _, header, _ in first = header.sequenceNumber }
        #expect(first == sent[2] &+ 2, "after the padding packet that ended 2's picture")
        _ = router.forward(rtp: Routing.rtp(ssrc: 30, sequenceNumber: 8), arrival: .seconds(2)) { _, _, _ in }

        let slot = try #require(one.receiveSlots.first { $0.slot == SlotID(kind: .video, index: 0) })
        let routed = router.route(rtcp: LossRepairRoutingTests.nack([sent[1]], slot: slot.outgoingSSRC), from: 1, now: .seconds(3))
        #expect(routed.retransmissions.isEmpty, "2's packet is not shown again")
        #expect(try LossRepairRoutingTests.keyframeRequests(in: routed.rtcp).map(\.ssrc) == [30])
        var next: UInt16?
        _ = router.forward(rtp: Routing.rtp(ssrc: 30, sequenceNumber: 9), arrival: .seconds(3)) { _, header, _ in next = header.sequenceNumber }
        #expect(next == first! &+ 1 &+ SlotRewriter.staleSkip)
    }
}

/// A video slot that stops showing its source (its user may no longer see it) is ended by a
/// padding packet, so a receiver that hands a frame on only when a packet of another timestamp
/// arrives (aiortc) shows the last frame now, not when the slot is filled again, maybe from
/// another room; the next source's first frame shares the padding's timestamp, so the padding
/// is never a frame of its own (an empty frame ends aiortc's decoder).
@Suite struct ClosingPacketRoutingTests {
    typealias Events = ForwardingEngineEventTests

    @Test func aSlotThatGoesDarkIsEndedByOnePaddingPacketThatTheNextSourceFollows() throws {
        let events = Events()
        events.watch([2], at: .zero)
        var last: RewrittenHeader?
        for number in UInt16(500)...502 {
            events.engine.receive(rtp: Events.video(ssrc: 20, sequenceNumber: number, keyframe: number == 500), from: 2, at: .milliseconds(Int(number) - 500))
            last = Events.copies(events.outputs(), .forward).last?.header ?? last
        }
        // 1 moves where it may no longer see 2, and nobody else publishes: the slot goes dark,
        // a second after 2's last packet (a second of video clock later).
        events.watch([], at: .milliseconds(1002))
        let closings = Events.copies(events.outputs(), .closing)
        let slot = try #require(events.plans[1]!.receiveSlots.first { $0.slot == SlotID(kind: .video, index: 0) })
        #expect(closings.count == 1 && closings.first?.subscriber == 1)
        let closing = try #require(closings.first)
        #expect(closing.header == RewrittenHeader(ssrc: slot.outgoingSSRC, sequenceNumber: last!.sequenceNumber &+ 1, timestamp: last!.timestamp &+ 90_000))
        let packet = try RTPPacket(decoding: closing.packet)
        #expect(packet.payload.isEmpty && !packet.marker && closing.packet[0] & 0x20 != 0, "padding only, no frame of its own")
        #expect(closing.packet[1] & 0x7F == closing.translation.payloadType, "in the slot's own payload type")
        events.watch([], at: .seconds(2))
        #expect(Events.copies(events.outputs(), .closing).isEmpty, "once")

        // Lost, it is sent again when NACKed.
        let nack = RTCPPacket.genericNACK(RTCPGenericNACK(senderSSRC: 9, mediaSSRC: slot.outgoingSSRC, lost: [closing.header.sequenceNumber])).encoded()
        events.engine.receive(rtcp: nack, from: 1, at: .milliseconds(2100))
        #expect(Events.copies(events.outputs(), .repair).map(\.packet) == [closing.packet])

        // 3 comes into view: the slot is filled again, not ended, and 3's keyframe follows the
        // closing packet, in its timestamp.
        events.watch([3], at: .seconds(3))
        #expect(Events.copies(events.outputs(), .closing).isEmpty)
        events.engine.receive(rtp: Events.video(ssrc: 30, sequenceNumber: 9, keyframe: true), from: 3, at: .milliseconds(3500))
        events.engine.receive(rtp: Events.video(ssrc: 30, sequenceNumber: 10, keyframe: false), from: 3, at: .milliseconds(3533))
        let first = Events.copies(events.outputs(), .forward).map(\.header)
        #expect(first.map(\.sequenceNumber) == [closing.header.sequenceNumber &+ 1, closing.header.sequenceNumber &+ 2])
        #expect(first.first?.timestamp == closing.header.timestamp)
    }
}
