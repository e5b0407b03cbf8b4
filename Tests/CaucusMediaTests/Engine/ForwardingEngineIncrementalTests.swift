import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// Issue 23, item 2, on the router: a handover recomputes the users it names, not the session.
@Suite struct ForwardingEngineIncrementalTests {
    @Test func aMoveInOneRoomRecomputesThatRoomOnly() {
        let router = ForwardingEngine()
        let rooms = (0..<10).map { room in Array((room * 10 + 1)...(room * 10 + 10)) }
        for user in rooms.joined() {
            _ = router.add(user, plan: ForwardingEngineTests.plan(audioSSRC: UInt32(user), videoSSRC: UInt32(user * 1_000)), now: .zero)
        }
        var everyone = RoutingHandover()
        for (index, members) in rooms.enumerated() {
            for user in members {
                let others = members.filter { $0 != user }.map { PublishedStream(publisher: $0, kind: .audio) }
                everyone.users[user] = RoutingHandover.Entry(eligible: others, location: index + 1, channel: nil)
            }
        }
        #expect(router.update(everyone, now: .zero).subscribersRecomputed == 100)

        // User 1 moves from room 1 to room 2: the session names rooms 1 and 2.
        var moved = RoutingHandover()
        let (red, blue) = (rooms[0].filter { $0 != 1 }, [1] + rooms[1])
        for user in red {
            let others = red.filter { $0 != user }.map { PublishedStream(publisher: $0, kind: .audio) }
            moved.users[user] = RoutingHandover.Entry(eligible: others, location: 1, channel: nil)
        }
        for user in blue {
            let others = blue.filter { $0 != user }.map { PublishedStream(publisher: $0, kind: .audio) }
            moved.users[user] = RoutingHandover.Entry(eligible: others, location: 2, channel: nil)
        }
        let changes = router.update(moved, now: .seconds(1))
        #expect(changes.subscribersRecomputed == 20, "rooms 1 and 2, not the 100 users")
        #expect(router.records.members(of: 2)?.contains(1) == true)
        // And the packets follow: user 1's audio reaches room 2's slots only.
        var reached = Set<Int>()
        _ = router.forward(rtp: ForwardingEngineSpeakerTests.audio(ssrc: 1, sequence: 1, level: 127), arrival: .seconds(2)) { user, _, _ in
            reached.insert(user)
        }
        #expect(!reached.isEmpty && reached.isSubset(of: Set(rooms[1])), "\(reached)")
    }

    /// The session names a superset (a plan committed names everyone): users whose entry is
    /// what the router has are not recomputed; a changed pin is a change.
    @Test func usersWhoseEntryIsUnchangedAreNotRecomputed() {
        let router = ForwardingEngine()
        let users = Array(1...30)
        for user in users {
            _ = router.add(user, plan: ForwardingEngineTests.plan(audioSSRC: UInt32(user), videoSSRC: UInt32(user * 1_000)), now: .zero)
        }
        func everyone(pinning: Int? = nil) -> RoutingHandover {
            var handover = RoutingHandover()
            for user in users {
                let others = users.filter { $0 != user }.map { PublishedStream(publisher: $0, kind: .audio) }
                let pin = pinning.flatMap { $0 == user ? nil : PublishedStream(publisher: $0, kind: .audio) }
                handover.users[user] = RoutingHandover.Entry(eligible: others, location: 0, channel: nil, pinned: pin)
            }
            return handover
        }
        #expect(router.update(everyone(), now: .zero).subscribersRecomputed == 30)
        #expect(router.update(everyone(), now: .seconds(1)).subscribersRecomputed == 0, "nothing changed for anyone")
        #expect(router.update(everyone(pinning: 7), now: .seconds(2)).subscribersRecomputed == 29, "everyone but 7 has a pin now")
    }
}
