import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// Issue 23, items 2 and 3, on the engine driven directly: a new speaker order in a location
/// too large for one routing slice (a main session where everyone publishes) is recomputed in
/// slices like a handover, with packets forwarded in between; each user keeps its slots until
/// its slice, is told the new order with the slot map that follows it, and the slices end where
/// the order applied whole ends.
@Suite struct SlicedSpeakerRoutingTests {
    static let users = 1...12

    /// Everyone in the main session (location 0), receiving the others' audio and video, each
    /// with a signalling channel (so it is told who speaks).
    static func mainSession(channel: AnyObject) -> ForwardingEngine {
        let router = SlicedRoutingTests.session(users.count)
        var handover = SlicedRoutingTests.handover(Dictionary(uniqueKeysWithValues: users.map { ($0, 0) }))
        for user in users { handover.users[user]?.channel = SignallingChannelID(channel) }
        _ = router.update(handover, now: .zero)
        return router
    }

    /// One audio packet from every user at `step` (20 ms apart): `loud` at −10 dBov, the rest silent.
    static func speak(_ loud: Set<Int>, step: Int, to routers: [ForwardingEngine]) {
        for user in users {
            let packet = ForwardingEngineSpeakerTests.audio(ssrc: UInt32(user), sequence: UInt16(step), level: loud.contains(user) ? 10 : 127)
            for router in routers { _ = router.forward(rtp: packet, arrival: .milliseconds(step * 20)) { _, _, _ in } }
        }
    }

    static func audioSources(of user: Int, in router: ForwardingEngine) -> [Int?] {
        router.subscribers[user]?.currentMap?.slots.filter { $0.kind == .audio }.map(\.publisher) ?? []
    }

    /// 5 and 9 speak until the order changes (at most 40 packets each); returns who was told
    /// it at once.
    static func speakUntilTheOrderChanges(_ router: ForwardingEngine, slice: Int) -> [Int] {
        for step in 1...40 {
            Self.speak([5, 9], step: step, to: [router])
            let told = router.evaluateSpeakers(now: .milliseconds(step * 20), slice: slice).activeSpeakers.map(\.user)
            if !told.isEmpty { return told }
        }
        return []
    }

    /// One user's recomputation costs more than a slice of a single user's: one user a slice.
    static let oneUserASlice = ForwardingEngine.userCost + 2 * (users.count - 1)

    @Test func aLargeLocationsNewOrderIsAppliedInSlicesAndTellsEachUserWithItsMap() throws {
        let channel = SignallingChannelID.Owner()
        let sliced = Self.mainSession(channel: channel)
        let whole = Self.mainSession(channel: channel)
        let before = Dictionary(uniqueKeysWithValues: Self.users.map { ($0, Self.audioSources(of: $0, in: sliced)) })
        // 5 and 9 speak: the order changes at once for the whole engine, a user a slice for the other.
        var first: ForwardingEngine.Changes?
        for step in 1...40 {
            Self.speak([5, 9], step: step, to: [sliced, whole])
            let now = Duration.milliseconds(step * 20)
            _ = whole.evaluateSpeakers(now: now)
            let changes = sliced.evaluateSpeakers(now: now, slice: Self.oneUserASlice)
            if first == nil, !changes.activeSpeakers.isEmpty { first = changes }
            if first != nil { break }
        }
        let firstSlice = try #require(first, "the speakers never changed")
        let speakers = Array(sliced.speakers.speakers(in: 0))
        try #require(!speakers.isEmpty)
        #expect(Set(speakers) == [5, 9])
        #expect(firstSlice.activeSpeakers.map(\.user) == [1], "one user in the first slice")
        #expect(sliced.isRoutingPending)
        // The others keep their slots, and their audio, until their slice.
        #expect(Self.audioSources(of: 12, in: sliced) == before[12])
        var told = firstSlice.activeSpeakers
        var slices = 1
        var step = 41
        while sliced.isRoutingPending {
            // Packets keep flowing between slices, the speakers still speaking.
            Self.speak([5, 9], step: step, to: [sliced])
            told += sliced.recomputePending(now: .milliseconds(step * 20), slice: Self.oneUserASlice).activeSpeakers
            step += 1
            slices += 1
        }
        #expect(slices == Self.users.count)
        #expect(told.map(\.user) == Array(Self.users), "each user told once, in order")
        for (user, told, map) in told {
            #expect(told == speakers)
            // The map sent with the order is the one it follows: the speakers hold audio slots.
            let audio = map.slots.filter { $0.kind == .audio }.compactMap(\.publisher)
            #expect(Set(speakers.filter { $0 != user }).isSubset(of: Set(audio)), "user \(user): \(audio) against \(speakers)")
        }
        for user in Self.users {
            #expect(Self.audioSources(of: user, in: sliced) == Self.audioSources(of: user, in: whole), "user \(user)")
        }
    }

    /// A user waiting for its slice whom another recomputation reaches first (a peer leaving
    /// recomputes everyone who received it) is told the new order then, with that map, and
    /// not again at its slice.
    @Test func aWaitingUserIsToldByWhicheverRecomputationReachesItFirst() throws {
        let channel = SignallingChannelID.Owner()
        let router = Self.mainSession(channel: channel)
        #expect(Self.speakUntilTheOrderChanges(router, slice: Self.oneUserASlice) == [1])
        let speakers = Array(router.speakers.speakers(in: 0))
        try #require(!speakers.isEmpty)
        // User 2 leaves: everyone who received it is recomputed at once, and told.
        let leaving = router.remove(2, now: .seconds(1))
        #expect(leaving.activeSpeakers.map(\.user) == Array(3...12))
        for (user, told, map) in leaving.activeSpeakers {
            #expect(told == speakers)
            #expect(map == router.subscribers[user]?.currentMap, "user \(user) told with the map it has")
        }
        var later: [Int] = []
        while router.isRoutingPending { later += router.recomputePending(now: .seconds(2), slice: Self.oneUserASlice).activeSpeakers.map(\.user) }
        #expect(later.allSatisfy { $0 == 2 }, "each told once: \(later)")
    }

    @Test func aLocationWithinOneSliceChangesAtOnce() throws {
        let channel = SignallingChannelID.Owner()
        let router = Self.mainSession(channel: channel)
        #expect(Self.speakUntilTheOrderChanges(router, slice: 16_384) == Array(Self.users))
        #expect(!router.isRoutingPending)
    }
}

extension SignallingChannelID {
    /// Something for a test's users' channel to name.
    final class Owner {}
}
