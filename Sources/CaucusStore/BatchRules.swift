import CaucusCore

/// What every store checks of a batch before and while writing it, so both refuse the same
/// batches with the same codes.
public enum BatchRules {
    /// Refuses a batch that is not contiguous and increasing, or goes on after sessionEnded:
    /// either would leave a log that no longer replays into the session that wrote it.
    public static func checkShape(of events: [SequencedEvent], in session: StoredSessionID) throws(StoreError) {
        for (previous, next) in zip(events, events.dropFirst()) where next.seq != previous.seq + 1 {
            throw StoreError(
                .outOfOrder, "Events for session \(session) must be numbered contiguously: \(previous.seq) then \(next.seq).")
        }
        for sequenced in events.dropLast() {
            if case .sessionEnded = sequenced.event {
                throw StoreError(.outOfOrder, "Event \(sequenced.seq) ends session \(session) but more events follow it.")
            }
        }
    }

    /// Refuses a first seq that is not the one after the log's end `last`.
    public static func check(first: Int, after last: Int, in session: StoredSessionID) throws(StoreError) {
        if first <= last { throw StoreError.duplicateSeq(first, in: session, last: last) }
        if first != last + 1 { throw StoreError.gap(expected: last + 1, got: first, in: session) }
    }

    /// Refuses an opening on a batch that does not begin the log, and a first batch without one.
    public static func checkOpening(_ opening: SessionOpening?, first: Int, in session: StoredSessionID) throws(StoreError) {
        if opening != nil && first != 1 {
            throw StoreError(.outOfOrder, "Only the batch that begins session \(session)'s log opens it, not one from \(first).")
        }
    }

    /// Refuses an opening batch that claims a lease: a session has none before its row exists.
    public static func checkOpening(_ opening: SessionOpening?, lease: LeaseEpoch?, in session: StoredSessionID) throws(StoreError) {
        if opening != nil { try SessionLease.never.checkWrite(claimed: lease, to: session) }
    }

    public static func endsSession(_ events: [SequencedEvent]) -> Bool {
        if case .sessionEnded? = events.last?.event { true } else { false }
    }
}
