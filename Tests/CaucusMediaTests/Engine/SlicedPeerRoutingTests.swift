import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// Issue 23, item 2, on the engine driven directly: a peer that goes (its user left, or its
/// media closed) or comes back (a reconnect's new offer) in a main session where everyone
/// publishes changes the slots of everyone who may receive it; when they cost more than a
/// routing slice they are refilled in slices, with packets forwarded in between, and end where
/// the change applied whole ends.
@Suite struct SlicedPeerRoutingTests {
    static func slots(_ router: ForwardingEngine) -> [Int: SubscriberSlotMap?] {
        Dictionary(uniqueKeysWithValues: SlicedSpeakerRoutingTests.users.map { ($0, router.subscribers[$0]?.currentMap) })
    }

    /// Runs the waiting slices one by one, a packet from everyone between two; returns how many.
    static func finish(_ router: ForwardingEngine, from step: Int) -> Int {
        var slices = 0
        while router.isRoutingPending {
            _ = SlicedRoutingTests.reached(router, users: SlicedSpeakerRoutingTests.users, sequence: UInt16(step + slices))
            router.continueRouting(now: .milliseconds((step + slices) * 20), slice: SlicedSpeakerRoutingTests.oneUserASlice)
            slices += 1
        }
        return slices
    }

    @Test func aPeerGoingAndComingBackRefillsItsReceiversSlotsInSlices() {
        let channel = SignallingChannelID.Owner()
        let sliced = SlicedSpeakerRoutingTests.mainSession(channel: channel)
        let whole = SlicedSpeakerRoutingTests.mainSession(channel: channel)
        let before = Self.slots(sliced)
        // User 1, first to join, fills one of everyone's audio and video slots.
        #expect(sliced.subscribers[12]?.currentMap?.slots.contains { $0.publisher == 1 } == true)

        sliced.removePeer(1, now: .seconds(1), slice: SlicedSpeakerRoutingTests.oneUserASlice)
        whole.removePeer(1, now: .seconds(1))
        #expect(sliced.isRoutingPending)
        #expect(sliced.subscribers[12]?.currentMap == before[12] ?? nil, "a receiver keeps its slots until its slice")
        #expect(Self.finish(sliced, from: 50) == 10, "its 11 receivers, the first at once and one a slice after")
        #expect(Self.slots(sliced) == Self.slots(whole))
        #expect(sliced.subscribers[12]?.currentMap?.slots.contains { $0.publisher == 1 } == false)

        let plan = ForwardingEngineTests.plan(audioSSRC: 1, videoSSRC: 1_000)
        sliced.addPeer(1, plan: plan, now: .seconds(2), slice: SlicedSpeakerRoutingTests.oneUserASlice)
        whole.addPeer(1, plan: plan, now: .seconds(2))
        #expect(sliced.isRoutingPending)
        #expect(Self.finish(sliced, from: 100) == 10)
        #expect(Self.slots(sliced) == Self.slots(whole))
        #expect(Self.slots(sliced) == before, "back as it was")
    }

    /// 2 publishes simulcast to eleven watchers; its busier layer takes over: the watchers are
    /// moved to it in slices (each keeps the old layer until its slice) and end as they would
    /// all at once, every one of them on the new layer at its keyframe.
    @Test func aSimulcastLayerChangeMovesItsManyWatchersInSlices() throws {
        typealias Simulcast = SimulcastRoutingTests
        let watchers = [1] + Array(3...12)
        func watched() throws -> ForwardingEngine {
            let router = ForwardingEngine()
            for user in watchers { _ = router.add(user, plan: ForwardingEngineTests.plan(audioSSRC: UInt32(user), videoSSRC: UInt32(user * 10)), now: .zero) }
            _ = router.add(2, plan: try Simulcast.simulcastPlan(), now: .zero)
            var eligible: [Int: [PublishedStream]] = [2: []]
            for user in watchers { eligible[user] = [PublishedStream(publisher: 2, kind: .video)] }
            _ = router.update(eligible: eligible, now: .zero)
            // "l" is learned first and forwarded; "h" then carries ten times the bytes.
            _ = router.observeSimulcast(Simulcast.layerPacket(ssrc: 501, sequenceNumber: 1, rid: "l"), from: 2, now: .milliseconds(1))
            _ = router.observeSimulcast(Simulcast.layerPacket(ssrc: 502, sequenceNumber: 1, rid: "h"), from: 2, now: .milliseconds(2))
            for index in 0..<20 {
                _ = Simulcast.forwarded(router, Simulcast.layerPacket(ssrc: 501, sequenceNumber: UInt16(2 + index), rid: nil, size: 100), at: .milliseconds(10 + index))
                _ = Simulcast.forwarded(router, Simulcast.layerPacket(ssrc: 502, sequenceNumber: UInt16(2 + index), rid: nil, keyframe: false, size: 1000), at: .milliseconds(10 + index))
            }
            return router
        }
        func watchersOf(_ ssrc: UInt32, _ router: ForwardingEngine, sequence: UInt16) -> Set<Int> {
            var reached = Set<Int>()
            _ = router.forward(rtp: Simulcast.layerPacket(ssrc: ssrc, sequenceNumber: sequence, rid: nil), arrival: .seconds(2)) { user, _, _ in reached.insert(user) }
            return reached
        }
        let oneWatcherASlice = ForwardingEngine.userCost + 1
        let sliced = try watched()
        let whole = try watched()
        _ = try #require(sliced.rankSimulcastLayers(now: .seconds(1), slice: oneWatcherASlice))
        _ = try #require(whole.rankSimulcastLayers(now: .seconds(1)))
        #expect(sliced.isRoutingPending)
        // The new layer's keyframe: only the first slice's watcher has moved to it so far.
        #expect(watchersOf(502, sliced, sequence: 40) == [1])
        #expect(watchersOf(501, sliced, sequence: 40) == Set(3...12), "the ten waiting keep the old layer")
        var slices = 0
        while sliced.isRoutingPending {
            sliced.continueRouting(now: .seconds(1), slice: oneWatcherASlice)
            slices += 1
        }
        #expect(slices == 10)
        // The next keyframe: every watcher on the new layer, as all at once.
        #expect(watchersOf(502, sliced, sequence: 50) == Set(watchers))
        #expect(watchersOf(502, whole, sequence: 50) == Set(watchers))
        #expect(watchersOf(501, sliced, sequence: 41).isEmpty)
    }

    @Test func aPeerWhoseReceiversFitOneSliceChangesThemAtOnce() {
        let channel = SignallingChannelID.Owner()
        let router = SlicedSpeakerRoutingTests.mainSession(channel: channel)
        router.removePeer(1, now: .seconds(1), slice: 16_384)
        #expect(!router.isRoutingPending)
        #expect(router.subscribers[12]?.currentMap?.slots.contains { $0.publisher == 1 } == false)
    }
}
