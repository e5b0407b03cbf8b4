import PropertyBased
import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// Issue 23, item 2 ("without a pause in forwarding"), on the engine driven directly: a large
/// handover is recomputed in slices with packets forwarded in between; while users wait for
/// their slice they receive nothing they may no longer receive, and the slices end where the
/// handover taken whole ends.
@Suite struct SlicedRoutingTests {
    /// Users 1…`count`, each publishing audio (SSRC = user) and video (user × 1,000), with two
    /// audio and two video slots.
    static func session(_ count: Int) -> ForwardingEngine {
        let router = ForwardingEngine()
        for user in 1...count {
            _ = router.add(user, plan: ForwardingEngineTests.plan(audioSSRC: UInt32(user), videoSSRC: UInt32(user * 1_000)), now: .zero)
        }
        return router
    }

    /// Everyone in `rooms` (user → location) receives the audio and video of the others there.
    static func handover(_ rooms: [Int: Int]) -> RoutingHandover {
        var handover = RoutingHandover()
        for (user, room) in rooms {
            let others = rooms.filter { $0.value == room && $0.key != user }.keys.sorted()
            let eligible = others.flatMap { [PublishedStream(publisher: $0, kind: .audio), PublishedStream(publisher: $0, kind: .video)] }
            handover.users[user] = RoutingHandover.Entry(eligible: eligible, location: room, channel: nil)
        }
        return handover
    }

    /// Users 1…`users` spread over a random number of rooms in `rooms`; about one in eight has
    /// left (nothing, nowhere).
    static func randomHandover(users: Int, rooms: ClosedRange<Int>, using random: inout SplitMix) -> RoutingHandover {
        let roomCount = Int.random(in: rooms, using: &random)
        var placed: [Int: Int] = [:]
        for user in 1...users where Int.random(in: 0..<8, using: &random) != 0 { placed[user] = Int.random(in: 0..<roomCount, using: &random) }
        var handover = handover(placed)
        for user in 1...users where placed[user] == nil {
            handover.users[user] = RoutingHandover.Entry(eligible: [], location: nil, channel: nil)
        }
        return handover
    }

    /// Every (subscriber, stream) one packet of each stream reaches now.
    static func reached(_ router: ForwardingEngine, users: ClosedRange<Int>, sequence: UInt16) -> Set<[Int]> {
        var reached = Set<[Int]>()
        for user in users {
            for (kind, ssrc) in [(0, UInt32(user)), (1, UInt32(user * 1_000))] {
                let packet = ForwardingEngineTests.rtp(ssrc: ssrc, sequenceNumber: sequence)
                _ = router.forward(rtp: packet, arrival: .milliseconds(Int(sequence) * 20)) { subscriber, _, _ in
                    reached.insert([subscriber, user, kind])
                }
            }
        }
        return reached
    }

    static func allowed(_ reached: Set<[Int]>, by handover: RoutingHandover) -> Bool {
        reached.allSatisfy { pair in
            let kind: StreamKind = pair[2] == 0 ? .audio : .video
            return handover.users[pair[0]]?.eligible.contains(PublishedStream(publisher: pair[1], kind: kind)) == true
        }
    }

    /// A breakout's start for 40 users of the main session into 8 rooms, in slices of two or
    /// three users: the first slice's users hear their rooms at once, the others nothing of the main
    /// session they left until their slice; at the end everyone hears its room.
    @Test func aBreakoutStartsInSlicesAndNobodyHearsTheMainSessionMeanwhile() {
        let router = Self.session(40)
        let main = Self.handover(Dictionary(uniqueKeysWithValues: (1...40).map { ($0, 0) }))
        _ = router.update(main, now: .zero)
        #expect(!router.isRoutingPending)
        #expect(Self.reached(router, users: 1...40, sequence: 1).count == 40 * 4, "two audio and two video slots each")

        let rooms = Self.handover(Dictionary(uniqueKeysWithValues: (1...40).map { ($0, 1 + ($0 - 1) % 8) }))
        let first = router.update(rooms, now: .seconds(1), slice: 3 * ForwardingEngine.userCost)
        #expect(router.isRoutingPending)
        #expect(first.subscribersRecomputed > 0 && first.subscribersRecomputed < 40)
        var slices = 1
        var sequence: UInt16 = 2
        var recomputed = first.subscribersRecomputed
        while true {
            let reached = Self.reached(router, users: 1...40, sequence: sequence)
            sequence += 1
            #expect(Self.allowed(reached, by: rooms), "a user waiting for its slice received a stream of the main session")
            // Those recomputed so far receive their room (4 others, 2 slots of each kind);
            // those waiting keep only what they may still receive (a speaker of the main
            // session now in their room).
            let full = Dictionary(grouping: reached, by: { $0[0] }).filter { $0.value.count == 4 }
            #expect(full.count >= recomputed)
            guard router.isRoutingPending else { break }
            recomputed += router.recomputePending(now: .seconds(1) + .milliseconds(slices), slice: 3 * ForwardingEngine.userCost).subscribersRecomputed
            slices += 1
        }
        #expect(recomputed == 40)
        #expect(slices > 5, "\(slices) slices")
        #expect(Self.reached(router, users: 1...40, sequence: sequence).count == 40 * 4)
    }

    /// Random sessions and moves, each handover taken whole by one engine and in random slices
    /// (later handovers arriving before the last slice) by another, packets forwarded between
    /// slices: the sliced engine never forwards what the latest handover forbids, and once its
    /// slices are done both fill each user's slots with the same streams (where in its slots
    /// may differ: a stream keeps the slot it had, and a user recomputed once for two
    /// handovers skipped the first one's slots).
    @Test(.shrinking(false))
    func slicesEndWhereTheWholeHandoverEnds() async {
        await propertyCheck(count: 60, input: Gen.int(in: 0...1_000_000_000)) { seed in
            var random = SplitMix(seed: UInt64(seed))
            let count = Int.random(in: 2...24, using: &random)
            let (whole, sliced) = (Self.session(count), Self.session(count))
            var sequence: UInt16 = 1
            for step in 0..<6 {
                let handover = Self.randomHandover(users: count, rooms: 1...4, using: &random)
                let now = Duration.seconds(step)
                _ = whole.update(handover, now: now)
                _ = sliced.update(handover, now: now, slice: Int.random(in: 1...1_200, using: &random))
                // Some slices now, the rest after the next handover (or at the end).
                let slicesNow = step == 5 ? Int.max : Int.random(in: 0...3, using: &random)
                var taken = 0
                repeat {
                    let reached = Self.reached(sliced, users: 1...count, sequence: sequence)
                    sequence &+= 1
                    #expect(Self.allowed(reached, by: handover), "seed \(seed), step \(step): forwarded what the handover forbids")
                    guard sliced.isRoutingPending, taken < slicesNow else { break }
                    _ = sliced.recomputePending(now: now, slice: Int.random(in: 1...1_200, using: &random))
                    taken += 1
                } while true
            }
            #expect(!sliced.isRoutingPending)
            for user in 1...count {
                let (slicedStreams, wholeStreams) = (sliced.records.assignment(of: user)?.sources.values, whole.records.assignment(of: user)?.sources.values)
                #expect(slicedStreams.map(Set.init) == wholeStreams.map(Set.init), "seed \(seed), user \(user)")
                func shown(_ router: ForwardingEngine) -> [String]? {
                    router.subscribers[user]?.currentMap.map { map in map.slots.map { "\($0.kind) \($0.publisher ?? 0)" }.sorted() }
                }
                #expect(shown(sliced) == shown(whole), "seed \(seed), user \(user)")
            }
        }
    }

    /// Everything a waiting user could be sent, over random sessions, moves and slice sizes:
    /// audio with levels that change who speaks, video whose keyframes come now and then (so
    /// slots wait for them across handovers), the media tick between slices (speakers ranked,
    /// locations recomputed, large ones in slices), and NACKs answered from the cache. No copy, forwarded or
    /// repaired, ever carries a stream the latest handover forbids its subscriber.
    @Test(.shrinking(false))
    func nothingForbiddenReachesAnyoneBetweenSlices() async {
        await propertyCheck(count: 40, input: Gen.int(in: 0...1_000_000_000)) { seed in
            var random = SplitMix(seed: UInt64(seed))
            let count = Int.random(in: 3...16, using: &random)
            let router = Self.session(count)
            var sequence: UInt16 = 1
            var now = Duration.zero
            // Each subscriber's slot SSRC → the last outgoing numbers seen there.
            var sentOn: [Int: [UInt32: [UInt16]]] = [:]
            for step in 0..<8 {
                let handover = Self.randomHandover(users: count, rooms: 1...3, using: &random)
                router.handle(handover, now: now, slice: Int.random(in: 1...1_200, using: &random))
                repeat {
                    now += .milliseconds(20)
                    sequence &+= 1
                    var copies: [(subscriber: Int, ssrc: UInt32)] = []
                    for user in 1...count {
                        let audio = ForwardingEngineSpeakerTests.audio(ssrc: UInt32(user), sequence: sequence, level: UInt8.random(in: 0...127, using: &random))
                        let video = ForwardingEngineEventTests.video(
                            ssrc: UInt32(user * 1_000), sequenceNumber: sequence, keyframe: Int.random(in: 0..<4, using: &random) == 0)
                        for (packet, ssrc) in [(audio, UInt32(user)), (video, UInt32(user * 1_000))] {
                            _ = router.forward(rtp: packet, arrival: now) { subscriber, header, _ in
                                copies.append((subscriber, ssrc))
                                if ssrc >= 1_000 { sentOn[subscriber, default: [:]][header.ssrc, default: []].append(header.sequenceNumber) }
                            }
                        }
                    }
                    // The tick may start a location's new speaker order in slices of its own.
                    if Bool.random(using: &random) { router.handleTimeout(now: now, slice: Int.random(in: 1...1_200, using: &random)) }
                    // Every subscriber asks again for the last two packets each video slot sent it.
                    for (subscriber, slots) in sentOn {
                        for (slotSSRC, numbers) in slots {
                            let nack = RTCPPacket.genericNACK(RTCPGenericNACK(senderSSRC: 1, mediaSSRC: slotSSRC, lost: Array(numbers.suffix(2))))
                            router.receive(rtcp: nack.encoded(), from: subscriber, at: now)
                        }
                    }
                    var outputs: [ForwardingOutput] = []
                    router.pollOutput { outputs.append($0) }
                    for repair in ForwardingEngineEventTests.copies(outputs, .repair) {
                        copies.append((repair.subscriber, UInt32(repair.packet[8]) << 24 | UInt32(repair.packet[9]) << 16 | UInt32(repair.packet[10]) << 8 | UInt32(repair.packet[11])))
                    }
                    let reached = Set(copies.map { [$0.subscriber, Int($0.ssrc >= 1_000 ? $0.ssrc / 1_000 : $0.ssrc), $0.ssrc >= 1_000 ? 1 : 0] })
                    #expect(Self.allowed(reached, by: handover), "seed \(seed), step \(step): a copy of a stream the handover forbids")
                    guard router.isRoutingPending else { break }
                    router.continueRouting(now: now, slice: Int.random(in: 1...1_200, using: &random))
                } while true
            }
        }
    }

    /// A slot that switched to a new source at its keyframe still has a route from the old
    /// one until the old one's next packet; a sliced handover that forbids the new source and
    /// allows the old one cuts the new one's route, and the old one's packet must not bring it
    /// back before the user's slice.
    @Test func aCutRouteStaysCutWhenAStaleRouteGoes() {
        let router = ForwardingEngine()
        for user in 1...3 {
            let offer = ForwardingEngineTests.offer(audioSSRC: UInt32(user), videoSSRC: UInt32(user * 1_000), audioSlots: 1, videoSlots: 1)
            _ = router.add(user, plan: ForwardingEngineTests.plan(of: offer, firstSSRC: UInt32(user * 100)), now: .zero)
        }
        /// User 3 may receive the video of `publishers`.
        func handover(_ publishers: [Int]) -> RoutingHandover {
            var handover = RoutingHandover()
            handover.users[3] = RoutingHandover.Entry(
                eligible: publishers.map { PublishedStream(publisher: $0, kind: .video) }, location: 0, channel: nil)
            return handover
        }
        func videoReaching3(from publisher: Int, _ sequence: UInt16) -> Bool {
            ForwardingEngineTests.forwarded(router, from: UInt32(publisher * 1_000), sequenceNumber: sequence).contains { $0[0] == 3 }
        }
        _ = router.update(handover([1]), now: .zero)
        #expect(videoReaching3(from: 1, 1))
        // 2 ranks first: user 3's one video slot switches to it at its keyframe, 1 still routed.
        _ = router.update(handover([2, 1]), now: .seconds(1))
        #expect(videoReaching3(from: 2, 2))
        #expect(router.routes.sources(of: SlotDestination(subscriber: 3, slot: SlotID(kind: .video, index: 0))).count == 2)
        // Now only 1 may reach user 3, whose slice comes after user 1's (one user per slice).
        var sliced = handover([1])
        sliced.users[1] = RoutingHandover.Entry(eligible: [PublishedStream(publisher: 2, kind: .audio)], location: 0, channel: nil)
        _ = router.update(sliced, now: .seconds(2), slice: 1)
        #expect(router.isRoutingPending)
        _ = videoReaching3(from: 1, 3)
        #expect(!videoReaching3(from: 2, 4), "user 3 received a stream it may no longer receive")
        _ = router.recomputePending(now: .seconds(2), slice: 1)
        #expect(!router.isRoutingPending)
        #expect(videoReaching3(from: 1, 5))
    }

    @Test func theQueueKeepsOrderTakesEachUserOnceAndAtLeastOnePerSlice() {
        var pending = PendingRouting()
        pending.enqueue([3, 1, 2], arrivals: [1])
        pending.enqueue([2, 4], arrivals: [4], speakerNews: [2])
        #expect(pending.contains(2) && !pending.contains(5))
        #expect(pending.takeSlice(budget: 1) { _ in 5 } == [3], "one user even over the budget")
        #expect(pending.takeSlice(budget: 10) { _ in 5 } == [1, 2])
        #expect(pending.takeAnnouncements(among: [2, 1]).map { [$0.user, $0.always ? 1 : 0] } == [[1, 0], [2, 1]])
        #expect(!pending.contains(2))
        #expect(pending.takeSlice(budget: .max) { _ in 1 } == [4])
        #expect(pending.isEmpty)
        #expect(pending.takeAnnouncements(among: [4]).map(\.user) == [4])
        #expect(pending.takeAnnouncements(among: [1, 2, 4]).isEmpty, "each told once")
        // Users taken and queued again, over and over, keep their order and never pile up.
        var waiting: [Int] = []
        for _ in 0..<1_000 {
            pending.enqueue([1, 2, 3], arrivals: [])
            let slice = pending.takeSlice(budget: 2) { _ in 1 }
            // The one left from the last round goes first, then the others in the order named.
            #expect(slice == Array((waiting + [1, 2, 3].filter { !waiting.contains($0) }).prefix(2)))
            waiting = [1, 2, 3].filter { pending.contains($0) }
            #expect(waiting.count == 1)
        }
        #expect(pending.storedUsers <= 6, "\(pending.storedUsers) users stored for 3 queued")
    }
}
