import CaucusMedia

/// A large handover recomputed in slices, so that forwarding goes on between them: a breakout
/// that starts for a thousand users changes every user's slots, which held the media loop
/// 20–50 ms in one piece (and every packet waited). The handover itself is taken in at once, and
/// so is what it forbids: a user still waiting for its slice stops receiving at once every
/// stream it may no longer receive (its new room's are added with its slice), so nobody hears
/// a room it has left for even one packet. Slices take a handover's users in the order of
/// their numbers, each slice a recomputation of its users; a later handover's users join the
/// queue behind (a user already in it keeps its place, and is recomputed from the latest
/// state). A large location's new speaker order joins the same queue
/// (``evaluateSpeakers(now:slice:)``), and so do the receivers of a peer that comes or goes,
/// or of a simulcast publication whose forwarded layer changed
/// (``recompute(receiversOf:and:now:slice:)``).
extension ForwardingEngine {
    /// Takes in `handover` and recomputes its users in slices costing about `slice` each (a
    /// user costs ``userCost`` plus one per stream it may receive), the first now; the rest wait
    /// for ``continueRouting(now:slice:)`` while ``isRoutingPending``.
    public func handle(_ handover: RoutingHandover, now: Duration, slice: Int) {
        perform(update(handover, now: now, slice: slice))
    }

    /// What recomputing a user costs beside its streams, in streams: its slot map, rewriters
    /// and routes. Measured (`caucus bench media`, release): a slice of users in rooms of 20
    /// took about 20 µs a user, one of a main session's thousand streams about 0.07 µs each.
    public static let userCost = 256

    /// What recomputing `user` costs, in the units of a slice.
    func routingCost(of user: Int) -> Int { Self.userCost + (records.eligible(user)?.count ?? 0) }

    /// What recomputing `users` costs, in the units of a slice.
    func routingCost(of users: some Sequence<Int>) -> Int { users.reduce(0) { $0 + routingCost(of: $1) } }

    /// Whether a sliced handover still has users to recompute.
    public var isRoutingPending: Bool { !pendingRouting.isEmpty }

    /// Recomputes the next slice of users a handover left waiting.
    public func continueRouting(now: Duration, slice: Int) {
        perform(recomputePending(now: now, slice: slice))
    }

    func update(_ handover: RoutingHandover, now: Duration, slice: Int) -> Changes {
        let (changed, arrivals) = apply(handover)
        pendingRouting.enqueue(changed, arrivals: arrivals)
        let changes = recomputePending(now: now, slice: slice)
        for user in changed where pendingRouting.contains(user) { cutIneligibleRoutes(of: user) }
        return changes
    }

    /// The next slice's recomputation (those among its users who arrived somewhere new, or
    /// whose location's speaker order changed, learn who speaks there with their slot maps:
    /// ``tellWaitingWhoSpeaks(among:in:)``).
    func recomputePending(now: Duration, slice: Int) -> Changes {
        guard !pendingRouting.isEmpty else { return Changes() }
        return recompute(pendingRouting.takeSlice(budget: slice, cost: routingCost(of:)), now: now)
    }

    /// Those among `users`, just recomputed, who wait to learn who speaks where they are (a
    /// sliced handover's arrivals, a large location's new order) learn it with the slot map
    /// they have now, whichever recomputation reached them first (their slice, or a layer
    /// chosen, a peer coming or going): the order and the map they are told agree.
    func tellWaitingWhoSpeaks(among users: some Collection<Int>, in changes: inout Changes) {
        for (user, always) in pendingRouting.takeAnnouncements(among: users) {
            guard let location = records.location(of: user) else { continue }
            let speaking = speakers.speakers(in: location)
            guard always || !speaking.isEmpty else { continue }
            announce(Array(speaking), to: [user], in: &changes)
        }
    }

    /// Recomputes `user`'s own slots (`also`) now, and those of every subscriber who may
    /// receive one of its streams (only users of its own location can): now too if they cost
    /// at most `slice`, otherwise in slices from the queue, the first now. A peer coming or
    /// going forbids nothing, so nothing is cut meanwhile: a receiver waiting for its slice
    /// keeps its slots (from a peer gone, nothing more arrives).
    func recompute(receiversOf user: Int, and also: [Int], now: Duration, slice: Int = .max) -> Changes {
        var receivers: [Int] = []
        let candidates = records.location(of: user).flatMap { records.members(of: $0) } ?? records.eligibleUsers
        for subscriber in candidates where !also.contains(subscriber) && records.eligible(subscriber)?.contains(where: { $0.publisher == user }) == true {
            receivers.append(subscriber)
        }
        guard routingCost(of: receivers) > slice else {
            return recompute(Set(also).union(receivers), now: now)
        }
        var changes = recompute(also, now: now)
        pendingRouting.enqueue(receivers.sorted())
        changes.append(recomputePending(now: now, slice: slice))
        return changes
    }

    /// Takes `user`'s routes from streams it may no longer receive out of the table; its
    /// rewriters keep their state for the recomputation to come.
    func cutIneligibleRoutes(of user: Int) {
        guard let subscriber = subscribers[user] else { return }
        let allowed = records.eligible(user) ?? []
        for receiveSlot in subscriber.plan.receiveSlots {
            let destination = SlotDestination(subscriber: user, slot: receiveSlot.slot)
            let ssrcs = routes.sources(of: destination)
            guard !ssrcs.isEmpty else { continue }
            let kept = ssrcs.filter { ssrc in
                guard let stream = upTracks[ssrc]?.stream ?? simulcast.stream(ofLayer: ssrc) else { return false }
                return allowed.contains(stream)
            }
            if kept.count != ssrcs.count { routes.route(destination, from: kept) }
        }
    }
}
