import CaucusCore

/// Which commits wait until the database has them on disk. The promise, on each store:
///
/// - **SQLite** (WAL mode): every commit is in the write-ahead log before `append` returns, so
///   it survives a crash of the server process. A synced commit (`synchronous = FULL`) also
///   survives a power cut or an OS crash, at the price of one `fsync` on the path of the
///   commands waiting for it; the others run at `synchronous = NORMAL`.
/// - **PostgreSQL** ignores the policy: every commit runs with `synchronous_commit = on`. The
///   database is a process of its own, which may crash while Caucus runs on; an unsynced commit
///   it lost would leave clients holding events the log no longer has.
///
/// An unsynced commit is flushed with the next synced one, and what a crash loses is always a
/// suffix: the log stays a consistent prefix, never a log with a hole.
public enum SyncPolicy: String, Sendable, CaseIterable {
    /// A commit that holds a message (a chat message or a broadcast) is synced before it
    /// returns: what a user was told was sent is on the disk. Other commits (joins, moves,
    /// presence) are synced with the next synced commit or checkpoint, and the log stays a
    /// consistent prefix whatever is lost.
    case messages
    /// Every commit is synced.
    case everyCommit = "every-commit"

    /// Whether the commit of `events` must be synced.
    public func syncs(_ events: [SequencedEvent]) -> Bool {
        switch self {
        case .everyCommit: true
        case .messages: events.contains { $0.event.isMessage }
        }
    }
}

extension Event {
    /// A user's words, which the sender is told were sent.
    public var isMessage: Bool {
        switch self {
        case .chatMessage, .broadcast: true
        default: false
        }
    }
}
