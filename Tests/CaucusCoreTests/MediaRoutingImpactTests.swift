import CaucusCore
import NIOConcurrencyHelpers
import PropertyBased
import Testing

/// Issue 23, item 2: which events make the media router recompute, and for whom
/// (`MediaRoutingImpact`, `SessionState.usersWithChangedMedia`).
@Suite struct MediaRoutingImpactTests {
    @Test func chatTimersAndPlansChangeNobodysMedia() {
        var harness = Harness.session(participants: 3)
        for id in 1...4 { harness.perform(.publish([.audio]), by: UserID(id)) }
        var events = harness.perform(.chat("hello", to: .room), by: UserID(2))
        events += harness.perform(.chat("psst", to: .user(UserID(3))), by: host)
        events += harness.perform(.addToPreList(["Red"]), by: host)
        events += harness.perform(.rename(UserID(3), to: "Cy"), by: host)
        #expect(!events.isEmpty)
        #expect(MediaRoutingImpact(of: events).isNone)
        #expect(MediaRoutingImpact(of: .timerWarning(secondsRemaining: 30)).isNone)
        #expect(harness.state.usersWithChangedMedia(after: .none, previousLocation: { _ in nil }) == [])
    }

    @Test func aMoveReachesTheMoverAndBothLocationsButNoOtherRoom() {
        var harness = Harness.session(participants: 5)
        harness.perform(.createRooms(RoomDefinition(), count: 2), by: host)
        let (red, blue) = (harness.state.rooms[0].id, harness.state.rooms[1].id)
        harness.perform(.joinRoom(red), by: UserID(2))
        harness.perform(.joinRoom(red), by: UserID(3))
        harness.perform(.joinRoom(blue), by: UserID(4))
        harness.perform(.joinRoom(blue), by: UserID(5))
        harness.perform(.publish([.audio]), by: UserID(2))

        let moved = harness.perform(.assign([UserID(2)], to: blue), by: host)
        let impact = MediaRoutingImpact(of: moved)
        #expect(impact.subscribers == [UserID(2)] && impact.publishers == [UserID(2)])
        let affected = harness.state.usersWithChangedMedia(after: impact) { $0 == UserID(2) ? .room(red) : nil }
        // Red lost a publisher, Blue gained one; the main session (host, user 6) is untouched.
        #expect(affected == [UserID(2), UserID(3), UserID(4), UserID(5)])

        // A user who publishes nothing changes only what it receives itself.
        let quiet = harness.perform(.assign([UserID(4)], to: red), by: host)
        let affectedByQuiet = harness.state.usersWithChangedMedia(after: MediaRoutingImpact(of: quiet)) { _ in nil }
        #expect(affectedByQuiet?.contains(UserID(4)) == true)
        #expect(MediaRoutingImpact(of: harness.perform(.publish([.video]), by: UserID(6))).publishers == [UserID(6)])
    }

    @Test func muteAndPauseReachTheMainSessionOpeningRoomsReachesEveryone() {
        var harness = Harness.session(participants: 2)
        let started = harness.perform(.createRooms(RoomDefinition(), count: 2), by: host)
        #expect(MediaRoutingImpact(of: started).everyone)
        #expect(harness.state.usersWithChangedMedia(after: MediaRoutingImpact(of: started)) { _ in nil } == nil)
        let muted = harness.perform(.muteParent(audio: true, video: false), by: host)
        #expect(MediaRoutingImpact(of: muted) == MediaRoutingImpact(locations: [.main]))
        harness.perform(.joinRoom(harness.state.rooms[0].id), by: UserID(2))
        let paused = harness.perform(.pauseParent, by: host)
        #expect(harness.state.usersWithChangedMedia(after: MediaRoutingImpact(of: paused)) { _ in nil } == [host, UserID(3)],
                "the main session's users, not the room's")
    }

    /// Over random sessions (the media walk of `MediaRoutingProperties`): after every step,
    /// every user the impact of its events leaves out receives exactly what it received before.
    @Test(.shrinking(false))
    func usersLeftOutReceiveExactlyWhatTheyDidBefore() async {
        let recomputedSome = NIOLockedValueBox(0)
        let skippedSome = NIOLockedValueBox(0)
        await propertyCheck(count: 20, input: SessionProperties.steps) { steps in
            var walk = SessionProperties.Walk()
            for (index, raw) in steps.enumerated() {
                let step: SessionProperties.Step = raw
                let before = walk.state
                let logged = walk.log.count
                if step.kind % 3 == 0 {
                    MediaRoutingProperties.takeMediaStep(step, in: &walk, entropy: UInt64(index))
                } else {
                    walk.take(step, entropy: UInt64(index))
                }
                if walk.failed { return }
                // A walk that ended starts a new session (and a new log).
                guard walk.log.count >= logged, case .live = walk.state.lifecycle else { continue }
                let events = walk.log[logged...]
                let impact = MediaRoutingImpact(of: events)
                guard let affected = walk.state.usersWithChangedMedia(after: impact, previousLocation: { before.users[$0]?.location })
                else { continue }
                if impact.isNone { skippedSome.withLockedValue { $0 += 1 } } else { recomputedSome.withLockedValue { $0 += 1 } }
                for user in Set(before.users.keys).union(walk.state.users.keys) where !affected.contains(user) {
                    let (was, now) = (before.mediaSources(for: user), walk.state.mediaSources(for: user))
                    if was != now {
                        Issue.record("step \(index): \(events) left out \(user), whose media went from \(was) to \(now)")
                        return
                    }
                }
            }
        }
        #expect(recomputedSome.withLockedValue { $0 } > 0)
        #expect(skippedSome.withLockedValue { $0 } > 0)
    }
}
