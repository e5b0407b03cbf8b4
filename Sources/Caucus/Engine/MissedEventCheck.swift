/// Counts the events this client received since the last check, so that a `ping` can confirm
/// it got every event the server sent it. A gap in `seq` proves nothing (each client sees only
/// its own events); a count the server disagrees with does (docs/protocol.md, "Checking for
/// missed events").
struct MissedEventCheck: Sendable, Equatable {
    /// The seq the next check counts from: the ping's `after`.
    private(set) var after: Int
    /// The seqs received after `after`, in order.
    private var received: [Int] = []

    init(after: Int) {
        self.after = after
    }

    enum Verdict: Equatable {
        case complete
        /// The server sent `sent` events that the check counts; `received` of them arrived.
        case missed(sent: Int, received: Int)
        /// The server no longer keeps what the check asked about, or the check started over
        /// (a fresh snapshot) while the ping was on its way.
        case unknown
    }

    mutating func receive(_ seq: Int) {
        if seq > after { received.append(seq) }
    }

    /// Takes the answer to a ping sent with `after: asked`: the server had sent `sent` events
    /// after `asked` up to `seq` before its reply, so all of them have arrived by now. The
    /// next check counts from `seq`.
    mutating func settle(asked: Int, seq: Int, sent: Int?) -> Verdict {
        guard asked == after, seq >= after else { return .unknown }
        let counted = received.prefix { $0 <= seq }.count
        received.removeFirst(counted)
        after = seq
        guard let sent else { return .unknown }
        return sent == counted ? .complete : .missed(sent: sent, received: counted)
    }
}
