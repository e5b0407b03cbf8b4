extension ForwardingEngine {
    /// What one recomputation asks the shell to do.
    struct Changes {
        /// Publishers to ask for a keyframe, with the incoming SSRC to name.
        var keyframeRequests: [(publisher: Int, ssrc: UInt32)] = []
        /// Who the audio slots follow in a location, for each user there told of it, with the
        /// user's current slot map (one frame: the map and the speakers it follows agree).
        var activeSpeakers: [(user: Int, speakers: [Int], map: SubscriberSlotMap)] = []
        var slotMaps: [(user: Int, map: SubscriberSlotMap)] = []
        /// Padding packets ending what video slots showed.
        var closings: [Copy] = []
        /// Receive slots whose source changed.
        var slotSwitches = 0
        /// Recomputations made (each of some users' slots).
        var recomputed = 0
        /// Subscribers whose slots were reassigned: what the recomputations cost.
        var subscribersRecomputed = 0

        mutating func append(_ other: Changes) {
            keyframeRequests += other.keyframeRequests
            activeSpeakers += other.activeSpeakers
            slotMaps += other.slotMaps
            closings += other.closings
            slotSwitches += other.slotSwitches
            recomputed += other.recomputed
            subscribersRecomputed += other.subscribersRecomputed
        }
    }

    /// A keyframe to ask for: the publisher, and the incoming SSRC to name.
    struct KeyframeSource: Hashable {
        let publisher: Int
        let ssrc: UInt32
    }
}
