import CaucusMedia

/// The routing of tests of the engine alone, which hand over a whole session at once.
extension ForwardingEngine {
    /// The whole session's eligibility and channels at once (every user not named has
    /// none), everyone in the main session: what tests of the routing alone hand over.
    func update(eligible: [Int: [PublishedStream]], channels: [Int: SignallingChannelID] = [:], now: Duration) -> Changes {
        var handover = RoutingHandover()
        for user in Set(eligible.keys).union(records.eligibleUsers).union(subscribers.keys) {
            handover.users[user] = RoutingHandover.Entry(eligible: eligible[user] ?? [], location: 0, channel: channels[user])
        }
        return update(handover, now: now)
    }
}
