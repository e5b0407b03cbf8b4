import CaucusCore

/// Roster news held back per recipient for a few milliseconds (DESIGN §2: "roster changes
/// from a burst of joins may be coalesced per recipient"). During a join storm every
/// present user would otherwise get one socket write per join; held, they get one write per
/// window carrying all of them.
///
/// A pure state machine over the recipients' frames, driven by the session: it decides what
/// to send now and what to hold, and never reorders what one recipient receives — anything
/// that is not roster news releases that recipient's held frames ahead of itself.
struct RosterHold<Recipient: Hashable, Frame> {
    private var held: [Recipient: [Frame]] = [:]
    /// Recipients in the order their first held frame arrived, for a fair release.
    private var order: [Recipient] = []

    /// What to do with one recipient's frames of a delivery.
    enum Action {
        /// Send these now (earlier held frames first, then the new ones).
        case send([Frame])
        /// Held; `startTimer` when this made the hold non-empty (the session releases all
        /// when the window ends).
        case held(startTimer: Bool)
    }

    var isEmpty: Bool { held.isEmpty }

    /// Takes `frames` for `recipient`; `urgent` if any of them is not roster news.
    mutating func deliver(_ frames: [Frame], to recipient: Recipient, urgent: Bool) -> Action {
        if urgent { return .send(release(recipient) + frames) }
        let wasEmpty = held.isEmpty
        if held[recipient] == nil { order.append(recipient) }
        held[recipient, default: []] += frames
        return .held(startTimer: wasEmpty)
    }

    /// The frames held for `recipient`, which must be sent before anything else to it.
    mutating func release(_ recipient: Recipient) -> [Frame] {
        guard let frames = held.removeValue(forKey: recipient) else { return [] }
        order.removeAll { $0 == recipient }
        return frames
    }

    /// Everything held, by recipient, in the order it was first held (the window ended).
    mutating func releaseAll() -> [(Recipient, [Frame])] {
        defer {
            held.removeAll()
            order.removeAll()
        }
        return order.compactMap { recipient in held[recipient].map { (recipient, $0) } }
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
