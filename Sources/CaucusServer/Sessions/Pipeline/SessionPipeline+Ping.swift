import CaucusCore
import CaucusProtocol

/// A client sees only its own events, so a gap in `seq` says nothing: it cannot tell an
/// event it missed from one that went to others. A `ping` with `after` lets it check: the
/// reply says how many events after `after` this seat was sent, and the client compares that
/// with how many it received (docs/protocol.md, "Checking for missed events").
extension SessionPipeline {
    /// The reply to a joined user's `ping`, after sending what its connection has held back
    /// (roster news), so that every event the reply counts goes out before it.
    mutating func ping(from user: UserID, after: Int?) -> (result: ReplyResult, actions: [Action]) {
        guard let connection = connections[user] else { return (.pong(seq: durableSeq, sent: nil), []) }
        let actions = flushHeldRoster(of: connection)
        // What came before the user's join is in its join snapshot, never sent as events.
        let sent = after.flatMap { window.count(sentTo: user, after: max($0, joinedAt[user] ?? 0), through: durableSeq) }
        return (.pong(seq: durableSeq, sent: sent), actions)
    }
}
