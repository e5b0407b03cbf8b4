/// An event as a session's log keeps it: numbered from 1 in the order it happened, with the
/// time the command that caused it was decided.
public struct SequencedEvent: Hashable, Sendable, Codable {
    public let seq: Int
    public let at: Instant
    public let event: Event

    public init(seq: Int, at: Instant, event: Event) {
        self.seq = seq
        self.at = at
        self.event = event
    }
}
