import Testing

import CaucusMedia
import CaucusSFU

/// The forwarding engine driven only through its sans-IO surface — handovers, packets and the
/// time in, ``ForwardingOutput`` out — with synthetic packet sequences: loss, reordering, the
/// 16-bit wrap, and a slot's switch while its old source is losing packets.
@Suite struct ForwardingEngineEventTests {
    /// A signalling channel's identity (the engine only compares them).
    final class Channel {}

    let engine = ForwardingEngine()
    let channel = Channel()
    let plans = [
        1: ForwardingEngineTests.plan(audioSSRC: 1, videoSSRC: 10), 2: ForwardingEngineTests.plan(audioSSRC: 2, videoSSRC: 20),
        3: ForwardingEngineTests.plan(audioSSRC: 3, videoSSRC: 30),
    ]

    init() {
        for user in plans.keys.sorted() { engine.addPeer(user, plan: plans[user]!, now: .zero) }
        _ = outputs()
    }

    func outputs() -> [ForwardingOutput] {
        var all: [ForwardingOutput] = []
        engine.pollOutput { all.append($0) }
        return all
    }

    /// User 1, in location 0, may receive the video of `publishers`; the others receive nothing.
    func watch(_ publishers: [Int], at now: Duration) {
        var handover = RoutingHandover()
        handover.users[1] = RoutingHandover.Entry(
            eligible: publishers.map { PublishedStream(publisher: $0, kind: .video) }, location: 0, channel: SignallingChannelID(channel))
        for user in [2, 3] { handover.users[user] = RoutingHandover.Entry(eligible: [], location: 0, channel: nil) }
        engine.handle(handover, now: now)
    }

    /// A VP8 packet: a keyframe's first packet, or a delta frame's.
    static func video(ssrc: UInt32, sequenceNumber: UInt16, keyframe: Bool) -> [UInt8] {
        var packet = ForwardingEngineTests.rtp(ssrc: ssrc, sequenceNumber: sequenceNumber)
        if !keyframe { packet[packet.count - 2] = 0x01 }  // the VP8 header's P bit: not a keyframe
        return packet
    }

    static func copies(_ outputs: [ForwardingOutput], _ purpose: ForwardingOutput.CopyPurpose) -> [ForwardingEngine.Copy] {
        outputs.compactMap {
            guard case .copy(let copy, let made) = $0, made == purpose else { return nil }
            return copy
        }
    }

    static func rtcp(_ outputs: [ForwardingOutput], to user: Int, _ purpose: ForwardingOutput.RTCPPurpose) -> [[UInt8]] {
        outputs.compactMap {
            guard case .rtcp(user, let packet, let made) = $0, made == purpose else { return nil }
            return packet
        }
    }

    static func nacked(_ packets: [[UInt8]]) -> [UInt16] {
        packets.flatMap { packet -> [UInt16] in
            guard case .genericNACK(let nack)? = try? RTCPPacket.decodeCompound(packet).first else { return [] }
            return nack.lostSequenceNumbers
        }
    }

    func slotSSRC(of user: Int) -> UInt32 {
        plans[user]!.receiveSlots.first { $0.slot == SlotID(kind: .video, index: 0) }!.outgoingSSRC
    }

    /// A handover fills a slot: the subscriber's slot map goes to its channel, a keyframe is
    /// asked of the publisher, and the counts say so.
    @Test func aHandoverQueuesTheSlotMapAndTheKeyframeRequest() {
        watch([2], at: .seconds(1))
        let out = outputs()
        let maps = out.compactMap { output -> SubscriberSlotMap? in
            guard case .slotMap(1, let map, nil) = output else { return nil }
            return map
        }
        #expect(maps.count == 1)
        #expect(maps.first?.slots.filter { $0.kind == .video }.map(\.publisher) == [2, nil])
        #expect(Self.rtcp(out, to: 2, .keyframeRequest).count == 1)
        #expect(!out.contains { if case .slotMap(2, _, _) = $0 { true } else { false } }, "2 has no channel: no slot map")
        #expect(engine.counters.slotSwitches == 1)
        #expect(outputs().isEmpty, "polling empties the queue")
    }

    /// Across the 16-bit wrap: a lost packet is asked of the publisher at once and again after
    /// the retry interval; when it comes late it is forwarded in its place; a subscriber's NACK
    /// is answered from the cache with the header the slot first sent it with.
    @Test func lossAcrossTheWrapIsAskedForFilledLateAndRepaired() throws {
        watch([2], at: .zero)
        _ = outputs()
        var sent: [UInt16: ForwardingEngine.Copy] = [:]
        for (index, sequenceNumber) in [UInt16(65_533), 65_534, 0, 1].enumerated() {
            engine.receive(rtp: Self.video(ssrc: 20, sequenceNumber: sequenceNumber, keyframe: index == 0), from: 2, at: .milliseconds(index * 10))
            let out = outputs()
            let forwarded = Self.copies(out, .forward)
            #expect(forwarded.map(\.subscriber) == [1])
            sent[sequenceNumber] = forwarded.first
            #expect(Self.nacked(Self.rtcp(out, to: 2, .nack)) == (sequenceNumber == 0 ? [65_535] : []))
        }
        let outgoing = try #require(sent[65_534]?.header.sequenceNumber)
        #expect(sent[0]?.header.sequenceNumber == outgoing &+ 2, "the gap keeps its place in the slot's numbering")
        #expect(sent[1]?.header.ssrc == slotSSRC(of: 1))

        engine.handleTimeout(now: .milliseconds(60))
        #expect(Self.nacked(Self.rtcp(outputs(), to: 2, .nack)) == [65_535], "asked again after the retry interval")

        engine.receive(rtp: Self.video(ssrc: 20, sequenceNumber: 65_535, keyframe: false), from: 2, at: .milliseconds(70))
        let late = Self.copies(outputs(), .forward)
        #expect(late.map(\.header.sequenceNumber) == [outgoing &+ 1], "the late packet fills its place")
        engine.handleTimeout(now: .milliseconds(200))
        #expect(Self.nacked(Self.rtcp(outputs(), to: 2, .nack)).isEmpty, "what arrived is asked for no more")

        let nack = RTCPPacket.genericNACK(RTCPGenericNACK(senderSSRC: 99, mediaSSRC: slotSSRC(of: 1), lost: [outgoing])).encoded()
        engine.receive(rtcp: nack, from: 1, at: .milliseconds(210))
        let out = outputs()
        let repairs = Self.copies(out, .repair)
        let original = try #require(sent[65_534])
        #expect(repairs.map { [$0.header.ssrc, UInt32($0.header.sequenceNumber), $0.header.timestamp] }
            == [[original.header.ssrc, UInt32(original.header.sequenceNumber), original.header.timestamp]], "sent again as the slot sent it")
        #expect(repairs.first?.translation == original.translation)
        #expect(repairs.first?.packet == Self.video(ssrc: 20, sequenceNumber: 65_534, keyframe: false))
        #expect(Self.rtcp(out, to: 2, .nack).isEmpty, "the cache had it: nothing asked upstream")
    }

    /// RTP a user sends under another's SSRC (its own SRTP keys, the other's stream inside) is
    /// dropped: never forwarded, repaired or cached as the other's.
    @Test func aPacketUnderAnotherPublishersSSRCIsDropped() throws {
        watch([2], at: .zero)
        _ = outputs()
        engine.receive(rtp: Self.video(ssrc: 20, sequenceNumber: 100, keyframe: true), from: 3, at: .milliseconds(10))
        #expect(Self.copies(outputs(), .forward).isEmpty, "3 is not 2")
        #expect(engine.counters.foreignSSRCs == 1)
        engine.receive(rtp: Self.video(ssrc: 20, sequenceNumber: 100, keyframe: true), from: 2, at: .milliseconds(20))
        #expect(Self.copies(outputs(), .forward).map(\.subscriber) == [1], "2's own packet of that number goes on")
    }

    /// A slot switches from 2 (losing packets) to 3: nothing of 3 is shown before its keyframe
    /// (and a keyframe is asked of it), 3's keyframe switches the slot, and a NACK for 2's
    /// packets is answered by nobody: the slot no longer shows 2.
    @Test func aSwitchDuringLossWaitsForTheKeyframeAndRepairsOnlyTheNewSource() throws {
        watch([2], at: .zero)
        engine.receive(rtp: Self.video(ssrc: 20, sequenceNumber: 100, keyframe: true), from: 2, at: .milliseconds(10))
        engine.receive(rtp: Self.video(ssrc: 20, sequenceNumber: 102, keyframe: false), from: 2, at: .milliseconds(20))
        let before = Self.copies(outputs(), .forward)
        #expect(before.count == 2)

        watch([3], at: .milliseconds(30))
        let switching = outputs()
        #expect(Self.rtcp(switching, to: 3, .keyframeRequest).count == 1)
        // The slot goes dark until 3's keyframe: a padding packet ends what it showed.
        #expect(Self.copies(switching, .closing).map(\.header.sequenceNumber) == [before[1].header.sequenceNumber &+ 1])
        engine.receive(rtp: Self.video(ssrc: 30, sequenceNumber: 7, keyframe: false), from: 3, at: .milliseconds(40))
        engine.receive(rtp: Self.video(ssrc: 20, sequenceNumber: 103, keyframe: false), from: 2, at: .milliseconds(45))
        #expect(Self.copies(outputs(), .forward).isEmpty, "2 may no longer be shown, 3 not before its keyframe")

        engine.receive(rtp: Self.video(ssrc: 30, sequenceNumber: 8, keyframe: true), from: 3, at: .milliseconds(50))
        let switched = Self.copies(outputs(), .forward)
        #expect(switched.count == 1)
        let first = try #require(switched.first)
        #expect(first.header.ssrc == slotSSRC(of: 1))
        #expect(first.header.sequenceNumber == before[1].header.sequenceNumber &+ 2, "one numbering across the switch, the closing packet between")

        let lost = before[1].header.sequenceNumber &- 1  // 2's packet 101, never received
        engine.receive(rtcp: RTCPPacket.genericNACK(RTCPGenericNACK(senderSSRC: 99, mediaSSRC: slotSSRC(of: 1), lost: [lost, before[1].header.sequenceNumber])).encoded(), from: 1, at: .milliseconds(60))
        let out = outputs()
        #expect(Self.copies(out, .repair).isEmpty)
        #expect(Self.rtcp(out, to: 2, .nack).isEmpty, "2's losses are not asked for a slot that left it")
    }

    /// A keyframe request made while the publisher's peer was still connecting cannot reach it
    /// (the shell has no keys to protect it with); when the peer connects, the streams any slot
    /// shows or waits for are asked again at once, not after the request's 500 ms retry.
    @Test func aPublisherWhosePeerConnectsIsAskedForTheKeyframesItsSlotsWaitFor() {
        watch([2], at: .zero)
        #expect(Self.rtcp(outputs(), to: 2, .keyframeRequest).count == 1, "the request made while 2 connects")
        engine.peerConnected(2, now: .milliseconds(100))
        #expect(Self.rtcp(outputs(), to: 2, .keyframeRequest).count == 1, "asked again as it connects")
        engine.peerConnected(3, now: .milliseconds(100))
        #expect(outputs().isEmpty, "nobody shows 3's video: nothing asked")
    }

    /// The counters add up what the engine did, for the shell's metrics.
    @Test func theCountersCountRecomputationsAndSwitches() {
        let start = engine.counters
        watch([2], at: .zero)
        watch([2, 3], at: .seconds(1))
        watch([], at: .seconds(2))
        #expect(engine.counters.recomputations - start.recomputations == 3)
        #expect(engine.counters.slotSwitches - start.slotSwitches == 4, "2 in, 3 in, both out")
    }
}
