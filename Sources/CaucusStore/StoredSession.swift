import CaucusCore

/// A session's identity in the store. Unlike a session's name it is never reused, so history
/// and logs of sessions that shared a name stay apart.
public struct StoredSessionID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: Int64

    public init(rawValue: Int64) { self.rawValue = rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "s\(rawValue)" }

    // A bare number, like the core's identifiers, so history JSON reads `"id": 7`.
    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(Int64.self) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// A session that has not ended, for rebuilding it after a restart: its latest snapshot, if
/// any, and the events after it.
public struct StoredSession: Sendable, Hashable {
    public let id: StoredSessionID
    public let app: String
    public let name: String
    public let createdAt: Instant
    public let snapshot: StoredSnapshot?
    /// In seq order, each after the snapshot's seq (all of the log without a snapshot).
    public let events: [SequencedEvent]

    public init(
        id: StoredSessionID, app: String, name: String, createdAt: Instant, snapshot: StoredSnapshot? = nil,
        events: [SequencedEvent]
    ) {
        self.id = id
        self.app = app
        self.name = name
        self.createdAt = createdAt
        self.snapshot = snapshot
        self.events = events
    }

    /// The seq the log ends at.
    public var lastSeq: Int { events.last?.seq ?? snapshot?.seq ?? 0 }

    /// The session's state at `lastSeq`: the snapshot's, then the events after it.
    public func rebuiltState(limits: SessionLimits) -> SessionState {
        var state = snapshot?.state ?? SessionState(limits: limits)
        for sequenced in events { state.apply(sequenced.event) }
        return state
    }
}
