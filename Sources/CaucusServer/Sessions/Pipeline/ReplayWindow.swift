import CaucusCore
import DequeModule

/// The most recent events of a session, kept to replay to resuming clients: each event's
/// frame and, when not everyone got it, who did. A client that missed more than the window
/// holds gets a fresh snapshot instead.
struct ReplayWindow<Frame> {
    private var kept = Deque<Kept>()
    let capacity: Int

    private struct Kept {
        let seq: Int
        let frame: Frame
        /// Who got it, when that was not everyone: a list of every user per event would cost
        /// (events × users) memory, and an idle session's window is most of its memory per user.
        let only: [UserID]?

        func wasSent(to user: UserID) -> Bool { only?.contains(user) ?? true }
    }

    init(capacity: Int) {
        self.capacity = capacity
    }

    mutating func keep<Connection, Encoding>(_ outgoing: SessionPipeline<Connection, Encoding>.Outgoing) where Encoding.Frame == Frame {
        guard capacity > 0 else { return }
        let only: [UserID]? = if case .some(let users) = outgoing.recipients { users } else { nil }
        kept.append(Kept(seq: outgoing.event.seq, frame: outgoing.frame, only: only))
        if kept.count > capacity { kept.removeFirst() }
    }

    /// How many events `user` was sent after `seen` up to `last`, or nil if some are no
    /// longer kept.
    /// `seen` may lie beyond `last` (a client's claim): nothing was sent after it.
    func count(sentTo user: UserID, after seen: Int, through last: Int) -> Int? {
        let firstKept = kept.first?.seq ?? (last + 1)
        // `seen + 1` would overflow for a client's Int.max.
        guard seen >= firstKept - 1 else { return nil }
        var count = 0
        for event in kept.reversed() {
            if event.seq <= seen { break }
            if event.seq <= last && event.wasSent(to: user) { count += 1 }
        }
        return count
    }

    /// The frames `user` was sent after `seen` up to `last`, or nil if some are no longer kept.
    func frames(after seen: Int, through last: Int, for user: UserID) -> [Frame]? {
        let firstKept = kept.first?.seq ?? (last + 1)
        guard seen >= firstKept - 1 else { return nil }
        return kept.filter { $0.seq > seen && $0.seq <= last && $0.wasSent(to: user) }.map(\.frame)
    }
}
