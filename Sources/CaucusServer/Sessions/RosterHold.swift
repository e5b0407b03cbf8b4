import CaucusCore

/// Roster news held back for a few milliseconds (DESIGN §2: "roster changes from a burst of
/// joins may be coalesced per recipient"). During a join storm every present user would
/// otherwise get one socket write per join; held, each gets one write per window carrying all
/// of them.
///
/// Roster news is for everyone present, so it is held once for the whole session, not once
/// per recipient: holding a join costs the same in a session of 10 or 1,000, and the users
/// owed the same news share one release (the shell assembles those bytes once). What differs
/// between recipients is only where they start: one attached during the window (a join, a
/// resume) already has what its first frame covered, and one released early (something
/// urgent for it) already has what was held until then.
///
/// A pure state machine driven by the session. It never reorders what one recipient
/// receives: anything that is not roster news releases that recipient's share first.
struct RosterHold<Recipient: Hashable, Frame> {
    /// This window's roster news, in seq order.
    private var news: [(seq: Int, frame: Frame)] = []
    /// Every recipient attached and not forgotten, with the seq through which it already has
    /// everything. Only these are ever released to: a reply may still go to a connection that
    /// closed, but news never does.
    private var through: [Recipient: Int] = [:]

    /// Recipients that are owed the same frames.
    struct Release {
        let recipients: [Recipient]
        let frames: [Frame]
    }

    var isEmpty: Bool { news.isEmpty }

    /// Holds an event's frame for everyone present. True when this opened a window (the
    /// session then calls `releaseAll` when it ends).
    mutating func hold(_ frame: Frame, seq: Int) -> Bool {
        news.append((seq, frame))
        return news.count == 1
    }

    /// A new recipient, whose first frame (a join reply, a resume's replay or snapshot) covers
    /// every event through `seq`: none of them is owed to it again.
    mutating func attach(_ recipient: Recipient, through seq: Int) {
        through[recipient] = max(seq, through[recipient] ?? seq)
    }

    /// What is held for `recipient`, which must go before anything else sent to it now.
    mutating func release(_ recipient: Recipient) -> [(seq: Int, frame: Frame)] {
        guard let last = news.last?.seq, let start = startIndex(of: recipient), start < news.count else { return [] }
        through[recipient] = last
        return Array(news[start...])
    }

    /// `recipient` is gone (its connection closed): nothing more is owed to it.
    mutating func forget(_ recipient: Recipient) {
        through[recipient] = nil
    }

    /// The window ended: each recipient gets what it is owed, those owed the same grouped.
    mutating func releaseAll() -> [Release] {
        guard !news.isEmpty else { return [] }
        defer { discard() }
        var groupAt: [Int: Int] = [:]
        var groups: [(start: Int, recipients: [Recipient])] = []
        for (recipient, seq) in through {
            let start = startIndex(after: seq)
            guard start < news.count else { continue }
            if let group = groupAt[start] {
                groups[group].recipients.append(recipient)
            } else {
                groupAt[start] = groups.count
                groups.append((start, [recipient]))
            }
        }
        return groups.map { group in Release(recipients: group.recipients, frames: news[group.start...].map(\.frame)) }
    }

    /// Drops everything held (the session broke).
    mutating func discard() {
        news.removeAll(keepingCapacity: true)
    }

    /// The first piece of news `recipient` does not have yet (nil: not a recipient).
    private func startIndex(of recipient: Recipient) -> Int? {
        through[recipient].map(startIndex(after:))
    }

    /// The first piece of news after `seq`.
    private func startIndex(after seq: Int) -> Int {
        // Binary search: the news is in seq order.
        var low = 0
        var high = news.count
        while low < high {
            let middle = (low + high) / 2
            if news[middle].seq <= seq { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

extension Event {
    /// Presence news about other users: may reach its recipients a few milliseconds late.
    var isRosterNews: Bool {
        switch self {
        case .userJoined, .userReconnecting, .userResumed: true
        default: false
        }
    }
}
