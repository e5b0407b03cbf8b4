import Testing

@testable import CaucusMedia

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

    @Test func aPeerWhoseReceiversFitOneSliceChangesThemAtOnce() {
        let channel = SignallingChannelID.Owner()
        let router = SlicedSpeakerRoutingTests.mainSession(channel: channel)
        router.removePeer(1, now: .seconds(1), slice: 16_384)
        #expect(!router.isRoutingPending)
        #expect(router.subscribers[12]?.currentMap?.slots.contains { $0.publisher == 1 } == false)
    }
}
