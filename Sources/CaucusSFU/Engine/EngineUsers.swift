import CaucusMedia

/// What the ``ForwardingEngine`` knows of each user, one record per user: what the session last
/// handed over of it (the streams it may receive, the one pinned for it, its signalling channel,
/// where it is) and the slots it was last given. A part of the engine with state of its own: the
/// engine hands each user's entry in (``take(_:for:)``) and records each recomputed assignment
/// (``assign(_:to:)``); the index of who is where (``members(of:)``) follows every move.
///
/// A user's peer (its `Subscriber`: plan, rewriters, slot maps sent) is not part of the record:
/// it lives from the peer's connection to its close, a record from the session's first mention
/// of the user to its last, and the two lifetimes differ (a reconnecting user has a record and
/// no peer; a peer may connect before its user's first handover).
///
/// A record with nothing in it goes: a user the session no longer names, whose peer has gone,
/// leaves nothing behind.
struct EngineUsers {
    /// One user's record.
    private struct Record {
        /// The streams it may receive, in the session's order; nil: none.
        var eligible: [PublishedStream]?
        var pinned: PublishedStream?
        var channel: SignallingChannelID?
        var location: Int?
        /// Its slots as last recomputed; nil while it has no peer.
        var assignment: SlotAssignment?

        var isEmpty: Bool { eligible == nil && pinned == nil && channel == nil && location == nil && assignment == nil }
    }

    /// Where a user went in ``take(_:for:)``: the location it left (if any, and whether it is
    /// empty now) and whether it arrived in another.
    struct Move: Equatable {
        var left: Int?
        var emptied = false
        var arrived: Int?
    }

    private var records: [Int: Record] = [:]
    /// Who is in each location; a location nobody is in has no entry.
    private var members: [Int: Set<Int>] = [:]

    /// The streams `user` may receive; nil when none.
    func eligible(_ user: Int) -> [PublishedStream]? { records[user]?.eligible }

    func pinned(_ user: Int) -> PublishedStream? { records[user]?.pinned }

    func channel(of user: Int) -> SignallingChannelID? { records[user]?.channel }

    /// Read in place, by index: every audio packet asks, and `records[user]?.location` copied
    /// the whole record out (its arrays retained and released).
    func location(of user: Int) -> Int? {
        guard let index = records.index(forKey: user) else { return nil }
        return records.values[index].location
    }

    /// `user`'s slots as last recomputed; nil when it has none (no peer, or not yet recomputed).
    func assignment(of user: Int) -> SlotAssignment? { records[user]?.assignment }

    /// Who is in `location`; nil when nobody is.
    func members(of location: Int) -> Set<Int>? { members[location] }

    /// How many users have a record.
    var count: Int { records.count }

    /// Users who may receive at least one stream, in no particular order.
    var eligibleUsers: Set<Int> {
        Set(records.lazy.filter { $0.value.eligible != nil }.map(\.key))
    }

    /// Takes in `user`'s entry from a handover. Returns whether it differs from what was known
    /// (its eligibility, pin, channel or location: only then does the user need recomputing),
    /// and its move, if its location changed.
    mutating func take(_ entry: RoutingHandover.Entry, for user: Int) -> (changed: Bool, move: Move?) {
        var record = records[user] ?? Record()
        let eligible = entry.eligible.isEmpty ? nil : entry.eligible
        let changed = eligible != record.eligible || entry.pinned != record.pinned || entry.location != record.location
            || entry.channel != record.channel
        let old = record.location
        record.eligible = eligible
        record.pinned = entry.pinned
        record.channel = entry.channel
        record.location = entry.location
        store(record, for: user)
        guard old != entry.location else { return (changed, nil) }
        var move = Move(arrived: entry.location)
        if let old {
            members[old]?.remove(user)
            if members[old]?.isEmpty == true { members[old] = nil }
            move.left = old
            move.emptied = members[old] == nil
        }
        if let new = entry.location { members[new, default: []].insert(user) }
        return (changed, move)
    }

    /// Records `user`'s recomputed slots; nil forgets them (its peer came anew or went).
    mutating func assign(_ assignment: SlotAssignment?, to user: Int) {
        var record = records[user] ?? Record()
        record.assignment = assignment
        store(record, for: user)
    }

    private mutating func store(_ record: Record, for user: Int) {
        records[user] = record.isEmpty ? nil : record
    }
}
