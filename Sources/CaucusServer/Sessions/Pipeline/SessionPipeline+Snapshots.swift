import CaucusCore
import CaucusStore

/// When the session's whole state is saved, so that a rebuild reads the latest snapshot and
/// the events after it instead of the whole log: every `snapshotInterval` events (with the
/// batch that reaches it) and when the server stops.
extension SessionPipeline {
    /// A snapshot of the state, when `snapshotInterval` events have been decided since the
    /// last one. Call only when the state is at `seq` (every decided event is in the batch).
    mutating func snapshotDue() -> StoredSnapshot? {
        guard snapshotInterval > 0, seq - snapshotSeq >= snapshotInterval, !state.isEnded else { return nil }
        snapshotSeq = seq
        return StoredSnapshot(seq: seq, state: state)
    }

    /// The snapshot to save as the server stops, once every decided event is stored: nil if
    /// snapshots are off, the latest one is current, the session ended, or its store broke
    /// (nothing after the log's end may be saved).
    mutating func snapshotAtShutdown() -> StoredSnapshot? {
        guard snapshotInterval > 0, lifecycle != .broken, storing == nil, pending.isEmpty, durableSeq == seq, seq > snapshotSeq, !state.isEnded
        else { return nil }
        snapshotSeq = seq
        return StoredSnapshot(seq: seq, state: state)
    }
}

extension SessionState {
    var isEnded: Bool { if case .ended = lifecycle { true } else { false } }
}
