import CaucusCore

/// When a commit waits for the disk (SQLite's `synchronous` in WAL mode).
///
/// Every commit is written to the write-ahead log before it returns, so it survives a crash
/// of the server process. What a sync adds is surviving a power cut or an OS crash, at the
/// price of one `fsync` (milliseconds on many disks) on the path of the commands waiting for
/// that commit.
public enum SyncPolicy: String, Sendable, CaseIterable {
    /// A commit that holds a message (a chat message or a broadcast) is synced before it
    /// returns: what a user was told was sent is on the disk. Other commits (joins, moves,
    /// presence) are synced with the next synced commit or checkpoint, and the log stays a
    /// consistent prefix whatever is lost.
    case messages
    /// Every commit is synced.
    case everyCommit = "every-commit"

    /// Whether the commit of `events` must be synced.
    func syncs(_ events: [SequencedEvent]) -> Bool {
        switch self {
        case .everyCommit: true
        case .messages: events.contains { $0.event.isMessage }
        }
    }
}

extension Event {
    /// A user's words, which the sender is told were sent.
    var isMessage: Bool {
        switch self {
        case .chatMessage, .broadcast: true
        default: false
        }
    }
}
