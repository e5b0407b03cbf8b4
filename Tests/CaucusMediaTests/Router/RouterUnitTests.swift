import CaucusMedia
import CaucusSFU
import Testing

/// The router's parts one rule at a time: preference, keyframe coalescing, RTCP back-mapping,
/// the routing table and the slot map.
@Suite struct RouterUnitTests {
    static func audio(_ publisher: Int) -> PublishedStream { PublishedStream(publisher: publisher, kind: .audio) }
    static func video(_ publisher: Int) -> PublishedStream { PublishedStream(publisher: publisher, kind: .video) }

    @Test func audioSlotsGoToTheLoudestThenTheLatestSpeakers() {
        let eligible = (1...5).map(Self.audio)
        let activity: [Int: SpeakerActivity] = [
            1: SpeakerActivity(audioLevel: 90), 2: SpeakerActivity(audioLevel: 10), 3: SpeakerActivity(lastSpoke: .seconds(9)),
            4: SpeakerActivity(audioLevel: 40), 5: SpeakerActivity(lastSpoke: .seconds(5)),
        ]
        let assignment = SlotAssignment.assign(eligible: eligible, activity: activity, layout: SlotLayout(audio: 3, video: 0, screenShare: 0), previous: .empty)
        #expect((0..<3).map { assignment.source(in: SlotID(kind: .audio, index: $0))?.publisher } == [2, 4, 1])
        let quiet = SlotAssignment.assign(
            eligible: eligible, activity: [3: SpeakerActivity(lastSpoke: .seconds(9)), 5: SpeakerActivity(lastSpoke: .seconds(5))],
            layout: SlotLayout(audio: 3, video: 0, screenShare: 0), previous: .empty)
        #expect((0..<3).map { quiet.source(in: SlotID(kind: .audio, index: $0))?.publisher } == [3, 5, 1])
    }

    /// A pinned stream (the voice broadcast) has a slot of its kind whatever the ranking; a
    /// pin that is not eligible, or of another kind, changes nothing.
    @Test func aPinnedStreamAlwaysHasASlot() {
        let layout = SlotLayout(audio: 1, video: 1, screenShare: 0)
        let eligible = [Self.audio(1), Self.audio(2), Self.video(2)]
        let order = SpeakerOrder(audio: [2, 1], video: [2])
        let ranked = SlotAssignment.assign(eligible: eligible, order: order, layout: layout, previous: .empty)
        #expect(ranked.source(in: SlotID(kind: .audio, index: 0)) == Self.audio(2))
        let pinned = SlotAssignment.assign(eligible: eligible, order: order, layout: layout, previous: ranked, pinned: Self.audio(1))
        #expect(pinned.source(in: SlotID(kind: .audio, index: 0)) == Self.audio(1))
        #expect(pinned.source(in: SlotID(kind: .video, index: 0)) == Self.video(2))
        #expect(SlotAssignment.assign(eligible: eligible, order: order, layout: layout, previous: ranked, pinned: Self.audio(9)) == ranked)
    }

    @Test func aNewLoudSpeakerTakesOnlyTheSlotOfTheOneWhoDroppedOut() {
        let layout = SlotLayout(audio: 2, video: 0, screenShare: 0)
        let first = SlotAssignment.assign(
            eligible: [Self.audio(1), Self.audio(2), Self.audio(3)],
            activity: [1: SpeakerActivity(audioLevel: 10), 2: SpeakerActivity(audioLevel: 20), 3: SpeakerActivity(audioLevel: 90)],
            layout: layout, previous: .empty)
        #expect(first.source(in: SlotID(kind: .audio, index: 0)) == Self.audio(1))
        // 3 becomes the loudest, 1 the quietest: 3 takes 1's slot; 2 stays where it was.
        let second = SlotAssignment.assign(
            eligible: [Self.audio(1), Self.audio(2), Self.audio(3)],
            activity: [1: SpeakerActivity(audioLevel: 90), 2: SpeakerActivity(audioLevel: 20), 3: SpeakerActivity(audioLevel: 5)],
            layout: layout, previous: first)
        #expect(second.source(in: SlotID(kind: .audio, index: 0)) == Self.audio(3))
        #expect(second.source(in: SlotID(kind: .audio, index: 1)) == Self.audio(2))
    }

    @Test func keyframeRequestsAreOnePerNewVideoSourcePerBatch() {
        let slot0 = SlotID(kind: .video, index: 0)
        let slot1 = SlotID(kind: .video, index: 1)
        let audio0 = SlotID(kind: .audio, index: 0)
        let old: [Int: SlotAssignment] = [
            10: SlotAssignment(sources: [slot0: Self.video(1), audio0: Self.audio(1)]),
            11: SlotAssignment(sources: [slot0: Self.video(1)]),
        ]
        // Three subscribers now see 2's video and one 4's screen; 10's audio slot goes from 1 to 3's
        // audio: one request for 2's video and one for 4's screen, none for audio, none for 1 (kept).
        let new: [Int: SlotAssignment] = [
            10: SlotAssignment(sources: [slot0: Self.video(1), slot1: Self.video(2), audio0: Self.audio(3)]),
            11: SlotAssignment(sources: [slot0: Self.video(2)]),
            12: SlotAssignment(sources: [slot0: Self.video(2), SlotID(kind: .screenShare, index: 0): PublishedStream(publisher: 4, kind: .screenShare)]),
        ]
        let update = RoutingUpdate(from: old, to: new)
        #expect(update.keyframeRequests == [Self.video(2), PublishedStream(publisher: 4, kind: .screenShare)])
        #expect(update.changes.count == 5)
        #expect(update.changes.first == SlotChange(subscriber: 10, slot: audio0, from: Self.audio(1), to: Self.audio(3)))
        #expect(RoutingUpdate(from: new, to: new).keyframeRequests.isEmpty)
    }

    /// A slot that carried source A (seq 1000…1004) then B (seq 50…52): what the subscriber
    /// NACKs and PLIs goes back to the source that sent it, with its own numbers.
    @Test func nackAndPLIGoBackToTheSourcesWithTheirOwnNumbers() throws {
        var slot = SlotRewriter(slot: SlotID(kind: .video, index: 0), outgoingSSRC: 0xAAAA, initialSequenceNumber: 65_534, initialTimestamp: 0)
        let firstSwitch = slot.select(source: 0xA)
        #expect(firstSwitch)
        var outgoing: [UInt16] = []
        for sequence: UInt16 in 1000...1004 where sequence != 1002 {
            let rewritten1 = slot.rewrite(ssrc: 0xA, sequenceNumber: sequence, timestamp: UInt32(sequence) * 3000, payloadLength: 10, arrival: .milliseconds(Int(sequence)))
            let header = try #require(rewritten1)
            outgoing.append(header.sequenceNumber)
        }
        // The gap at 1002 stays a gap, across the 16-bit wrap.
        #expect(outgoing == [65_534, 65_535, 1, 2])
        #expect(slot.keyframeTarget == 0xA)
        let secondSwitch = slot.select(source: 0xB)
        #expect(secondSwitch)
        #expect(slot.keyframeTarget == 0xB)
        let late = slot.rewrite(ssrc: 0xA, sequenceNumber: 1005, timestamp: 3_015_000, payloadLength: 10, arrival: .seconds(2))
        #expect(late == nil, "the old source is dropped after the switch")
        for sequence: UInt16 in 50...52 {
            let rewritten2 = slot.rewrite(ssrc: 0xB, sequenceNumber: sequence, timestamp: 7, payloadLength: 10, arrival: .seconds(2))
            let header = try #require(rewritten2)
            outgoing.append(header.sequenceNumber)
        }
        #expect(outgoing.suffix(3) == [3, 4, 5])
        let nack = RTCPGenericNACK(senderSSRC: 0x5, mediaSSRC: 0xAAAA, lost: [0, 1, 4, 5, 9])
        let mapped = slot.translate(nack, senderSSRC: 0x77)
        #expect(mapped.count == 2)
        #expect(mapped[0].mediaSSRC == 0xA && mapped[0].senderSSRC == 0x77 && mapped[0].lostSequenceNumbers == [1002, 1003])
        #expect(mapped[1].mediaSSRC == 0xB && mapped[1].lostSequenceNumbers == [51, 52])
    }

    @Test func senderReportsSpeakOfTheSlot() throws {
        var slot = SlotRewriter(slot: SlotID(kind: .audio, index: 1), outgoingSSRC: 0xAAAA, initialTimestamp: 1_000)
        slot.select(source: 0xA)
        let rewritten3 = slot.rewrite(ssrc: 0xA, sequenceNumber: 9, timestamp: 500, payloadLength: 60, arrival: .zero)
        _ = try #require(rewritten3)
        let rewritten4 = slot.rewrite(ssrc: 0xA, sequenceNumber: 10, timestamp: 1_460, payloadLength: 40, arrival: .milliseconds(20))
        _ = try #require(rewritten4)
        let report = RTCPSenderReport(ssrc: 0xA, ntpTimestamp: 42, rtpTimestamp: 2_420, packetCount: 999, octetCount: 9_999)
        let translated = try #require(slot.translate(report))
        #expect(translated.ssrc == 0xAAAA && translated.ntpTimestamp == 42)
        #expect(translated.rtpTimestamp == 2_920, "the same offset as the packets: 500 → 1000")
        #expect(translated.packetCount == 2 && translated.octetCount == 100)
        #expect(slot.translate(RTCPSenderReport(ssrc: 0xB, ntpTimestamp: 1, rtpTimestamp: 1, packetCount: 1, octetCount: 1)) == nil)
    }

    @Test func aNewSourceFollowsOnByTheArrivalGapAtTheClockRate() throws {
        var slot = SlotRewriter(slot: SlotID(kind: .audio, index: 0), outgoingSSRC: 1, initialSequenceNumber: 100, initialTimestamp: 4_294_967_000)
        slot.select(source: 0xA)
        let rewritten5 = slot.rewrite(ssrc: 0xA, sequenceNumber: 7, timestamp: 123, payloadLength: 1, arrival: .seconds(1))
        let first = try #require(rewritten5)
        slot.select(source: 0xB)
        let rewritten6 = slot.rewrite(ssrc: 0xB, sequenceNumber: 40_000, timestamp: 9, payloadLength: 1, arrival: .milliseconds(1_250))
        let second = try #require(rewritten6)
        #expect(second.sequenceNumber == 101)
        #expect(second.timestamp == first.timestamp &+ 12_000, "250 ms at 48 kHz, across the 32-bit wrap")
    }

    @Test func theRoutingTableMapsEachIncomingSSRCToItsSlots() {
        let slot = SlotID(kind: .video, index: 0)
        let table = RoutingTable(
            assignments: [
                2: SlotAssignment(sources: [slot: Self.video(1)]),
                1: SlotAssignment(sources: [slot: Self.video(1), SlotID(kind: .audio, index: 0): Self.audio(9)]),
            ],
            incomingSSRC: [Self.video(1): 0x111])
        #expect(table.destinations(of: 0x111) == [SlotDestination(subscriber: 1, slot: slot), SlotDestination(subscriber: 2, slot: slot)])
        #expect(table.destinations(of: 0x999).isEmpty, "9's audio has no known SSRC yet")
        #expect(table.routedSSRCs == [0x111])
    }
}
