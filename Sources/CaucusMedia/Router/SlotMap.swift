/// What a client is told of its slots: which user fills each one (none: the slot is silent
/// or blank). Sent on the WebSocket whenever a subscriber's assignment changes, as
/// `{"slots": [{"kind": "audio", "index": 0, "user": 3}, {"kind": "audio", "index": 1}, …]}`.
public struct SlotMap: Hashable, Sendable, Codable {
    public struct Entry: Hashable, Sendable, Codable {
        public let kind: StreamKind
        public let index: Int
        /// The publisher filling the slot; absent when it is empty.
        public let user: Int?

        public init(kind: StreamKind, index: Int, user: Int?) {
            self.kind = kind
            self.index = index
            self.user = user
        }
    }

    /// Every slot of the layout, audio first, each kind by index.
    public let slots: [Entry]

    public init(slots: [Entry]) { self.slots = slots }

    public init(layout: SlotLayout, assignment: SlotAssignment) {
        slots = layout.slots.map { Entry(kind: $0.kind, index: $0.index, user: assignment.source(in: $0)?.publisher) }
    }
}
