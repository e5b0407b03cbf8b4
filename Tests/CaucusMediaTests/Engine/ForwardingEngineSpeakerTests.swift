import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// Issue 23, item 3, on the media loop's router driven directly: the audio levels packets carry
/// rank the speakers of each location, and the slots follow the ranking; publishers nobody may
/// hear are never ranked.
@Suite struct ForwardingEngineSpeakerTests {
    /// An aiortc-numbered Opus packet (payload type 96) with its audio level under ID 2.
    static func audio(ssrc: UInt32, sequence: UInt16, level: UInt8) -> [UInt8] {
        var packet: [UInt8] = [0x90, 96, UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
        packet += withUnsafeBytes(of: (UInt32(sequence) &* 960).bigEndian, Array.init)
        packet += withUnsafeBytes(of: ssrc.bigEndian, Array.init)
        return packet + [0xBE, 0xDE, 0x00, 0x01, 0x20, 0x80 | level, 0, 0, 0x55, 0x55]
    }

    /// Users 1 to 4 in the main session, each with two audio slots, receiving the others' audio.
    static func room() -> ForwardingEngine {
        let router = ForwardingEngine()
        for user in 1...4 {
            _ = router.add(user, plan: ForwardingEngineTests.plan(audioSSRC: UInt32(user), videoSSRC: UInt32(user * 10)), now: .zero)
        }
        _ = router.update(eligible: Self.eligible(except: []), now: .zero)
        return router
    }

    static func eligible(except silenced: Set<Int>) -> [Int: [PublishedStream]] {
        Dictionary(uniqueKeysWithValues: (1...4).map { user in
            (user, (1...4).filter { $0 != user && !silenced.contains($0) }.map { PublishedStream(publisher: $0, kind: .audio) })
        })
    }

    /// The publishers whose audio reaches user 1's slots.
    static func heardByOne(_ router: ForwardingEngine, at sequence: UInt16) -> Set<Int> {
        var heard = Set<Int>()
        for publisher in 2...4 {
            let packet = Self.audio(ssrc: UInt32(publisher), sequence: sequence, level: 127)
            _ = router.forward(rtp: packet, arrival: .milliseconds(Int(sequence) * 20)) { user, _, _ in
                if user == 1 { heard.insert(publisher) }
            }
        }
        return heard
    }

    /// 2 speaks softly, 3 is silent, 4 is loud: 1's two audio slots go from the join order (2
    /// and 3) to the two speakers, 2 keeping its slot.
    @Test func theSlotsFollowTheSpeakersTheLevelsRank() {
        let router = Self.room()
        #expect(Self.heardByOne(router, at: 1) == [2, 3], "nobody heard yet: the join order")
        var published: [Duration] = []
        for step in 2...50 {
            let now = Duration.milliseconds(step * 20)
            for (publisher, level) in [2: UInt8(55), 3: 127, 4: 10] {
                _ = router.forward(rtp: Self.audio(ssrc: UInt32(publisher), sequence: UInt16(step), level: level), arrival: now) { _, _, _ in }
            }
            if step % 5 == 0, router.evaluateSpeakers(now: now).recomputed > 0 { published.append(now) }
        }
        // 4 (the louder) is ranked first, 2 when its smoothed level reaches −60 dBov, no sooner
        // than 500 ms after; then nothing changes.
        #expect(published.count == 2, "\(published)")
        #expect(zip(published, published.dropFirst()).allSatisfy { $1 - $0 >= .milliseconds(500) }, "\(published)")
        #expect(Array(router.speakers.speakers(in: 0)) == [4, 2])
        #expect(Self.heardByOne(router, at: 60) == [2, 4])
        #expect(router.subscribers[1]?.currentMap?.slots.filter { $0.kind == .audio }.map(\.publisher) == [2, 4], "2 kept its slot, 4 took 3's")
    }

    /// 3 broadcasts its voice quietly while 2 and 4 speak loudly: 1's two audio slots keep the
    /// broadcast whatever the levels (it is pinned), and the other slot goes to the loudest;
    /// without the pin the two loud speakers would take both.
    @Test func theVoiceBroadcastKeepsASlotWhoeverIsLouder() {
        for pinning in [true, false] {
            let router = Self.room()
            var handover = RoutingHandover()
            for (user, streams) in Self.eligible(except: []) {
                // The broadcast heads everyone's list, as the session hands it over.
                let broadcast = PublishedStream(publisher: 3, kind: .audio)
                let ordered = user == 3 ? streams : [broadcast] + streams.filter { $0 != broadcast }
                handover.users[user] = RoutingHandover.Entry(
                    eligible: ordered, location: 0, channel: nil, pinned: pinning && user != 3 ? broadcast : nil)
            }
            _ = router.update(handover, now: .zero)
            for step in 2...50 {
                let now = Duration.milliseconds(step * 20)
                for (publisher, level) in [2: UInt8(20), 3: 110, 4: 10] {
                    _ = router.forward(rtp: Self.audio(ssrc: UInt32(publisher), sequence: UInt16(step), level: level), arrival: now) { _, _, _ in }
                }
                if step % 5 == 0 { _ = router.evaluateSpeakers(now: now) }
            }
            if pinning {
                #expect(Self.heardByOne(router, at: 60) == [3, 4], "the broadcast and the loudest")
            } else {
                #expect(Self.heardByOne(router, at: 60) == [2, 4], "what the levels alone would give")
            }
        }
    }

    /// 4 is the loudest but its audio is not forwarded (say, it is a participant of a paused
    /// main session): it is never ranked, and drops out of the ranking once it stops being heard.
    @Test func aPublisherNobodyMayHearIsNeverRanked() {
        let router = Self.room()
        _ = router.update(eligible: Self.eligible(except: [4]), now: .zero)
        for step in 1...50 {
            let now = Duration.milliseconds(step * 20)
            for (publisher, level) in [2: UInt8(55), 3: 40, 4: 5] {
                _ = router.forward(rtp: Self.audio(ssrc: UInt32(publisher), sequence: UInt16(step), level: level), arrival: now) { _, _, _ in }
            }
            if step % 5 == 0 { _ = router.evaluateSpeakers(now: now) }
        }
        #expect(Set(router.speakers.speakers(in: 0)) == [2, 3])
    }
}
