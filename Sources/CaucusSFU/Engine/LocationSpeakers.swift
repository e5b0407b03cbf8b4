import CaucusMedia

/// Who speaks in each location: one `SpeakerRanking` per location, fed the audio levels of its
/// publishers, and per location the publishers someone there may hear (only they are ranked:
/// one whose audio the location does not forward is never listed as speaking). A part of the
/// `ForwardingEngine` with state of its own: the engine says who is where and what they may
/// receive; this says which locations have a new order.
struct LocationSpeakers {
    let configuration: SpeakerRanking.Configuration
    private var rankings: [Int: SpeakerRanking] = [:]
    /// Per location, the publishers someone there may hear, as last refreshed.
    private var audible: [Int: Set<Int>] = [:]
    /// Locations whose members or their eligibility changed since: `audible` is refreshed for
    /// them at the next evaluation.
    private var stale: Set<Int> = []

    init(configuration: SpeakerRanking.Configuration) {
        self.configuration = configuration
    }

    /// Whether any location has heard a voice (nothing to evaluate otherwise).
    var isEmpty: Bool { rankings.isEmpty }

    /// The speakers `location`'s audio slots follow, loudest first (empty when none).
    func speakers(in location: Int) -> ArraySlice<Int> { rankings[location]?.speakers ?? [] }

    /// The order `location`'s slots are filled in.
    func order(in location: Int) -> SpeakerOrder { rankings[location]?.order ?? .empty }

    /// An audio packet's level from `publisher` in `location`.
    mutating func hear(_ publisher: Int, level: UInt8, in location: Int, at time: Duration) {
        rankings[location, default: SpeakerRanking(configuration: configuration)].hear(publisher, level: level, at: time)
    }

    /// Someone came to or left `location`, or what they may receive changed.
    mutating func membersChanged(in location: Int) {
        stale.insert(location)
    }

    /// `user` left `location`: its voice no longer counts there; when nobody is left, the
    /// location's ranking goes.
    mutating func left(_ user: Int, from location: Int, emptied: Bool) {
        rankings[location]?.forget(user)
        if emptied {
            rankings[location] = nil
            audible[location] = nil
        }
    }

    /// Evaluates every location's ranking at `now`, first refreshing what the stale ones hear
    /// (`hearing(location)`: the publishers someone there may hear, nil when nobody is there).
    /// Returns the locations whose order changed, in no particular order.
    mutating func evaluate(at now: Duration, hearing: (Int) -> Set<Int>?) -> [Int] {
        for location in stale { audible[location] = hearing(location) }
        stale.removeAll()
        var changed: [Int] = []
        for location in Array(rankings.keys) {
            rankings[location]?.retain(only: audible[location] ?? [])
            if rankings[location]?.evaluate(at: now) != nil { changed.append(location) }
        }
        return changed
    }
}
