import CaucusCore
import DequeModule

/// The most recent events of a session, kept to replay to resuming clients: each event's
/// frame and, when not everyone got it, who did. A client that missed more than the window
/// holds gets a fresh snapshot instead.
///
/// Bounded twice: at most ``capacity`` events, and at most ``byteLimit`` bytes of them (each
/// event's frame and its list of recipients). The count alone let a big session's window grow
/// without a useful bound: a chat in a main session of 10,000 while others sit in rooms lists
/// every recipient, 80 KB an event, 800 MB for a window of 10,000.
struct ReplayWindow<Frame> {
    /// 64 MiB: a busy 1,000-user session's 10,000 events many times over.
    static var standardByteLimit: Int { 64 << 20 }

    private var kept = Deque<Kept>()
    private var keptBytes = 0
    let capacity: Int
    let byteLimit: Int

    private struct Kept {
        let seq: Int
        let frame: Frame
        /// Who got it, when that was not everyone: a list of every user per event would cost
        /// (events × users) memory, and an idle session's window is most of its memory per user.
        let only: [UserID]?
        /// What it counts against ``byteLimit``.
        let bytes: Int

        func wasSent(to user: UserID) -> Bool { only?.contains(user) ?? true }
    }

    init(capacity: Int, byteLimit: Int = Self.standardByteLimit) {
        self.capacity = capacity
        self.byteLimit = max(byteLimit, 1)
    }

    /// What the kept events count against ``byteLimit`` (tests).
    var bytes: Int { keptBytes }

    /// Keeps `outgoing`, whose frame is `frameBytes` long; the oldest go past either bound (the
    /// newest always stays).
    mutating func keep<Connection, Encoding>(_ outgoing: SessionPipeline<Connection, Encoding>.Outgoing, frameBytes: Int)
    where Encoding.Frame == Frame {
        guard capacity > 0 else { return }
        let only: [UserID]? = if case .some(let users) = outgoing.recipients { users } else { nil }
        let bytes = max(frameBytes, 0) + (only?.count ?? 0) * MemoryLayout<UserID>.stride
        kept.append(Kept(seq: outgoing.event.seq, frame: outgoing.frame, only: only, bytes: bytes))
        keptBytes += bytes
        while kept.count > capacity || (keptBytes > byteLimit && kept.count > 1) {
            keptBytes -= kept.removeFirst().bytes
        }
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
