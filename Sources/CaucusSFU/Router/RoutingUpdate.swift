import CaucusMedia

/// One slot whose source changes.
public struct SlotChange: Hashable, Sendable {
    public let subscriber: Int
    public let slot: SlotID
    public let from: PublishedStream?
    public let to: PublishedStream?

    public init(subscriber: Int, slot: SlotID, from: PublishedStream?, to: PublishedStream?) {
        self.subscriber = subscriber
        self.slot = slot
        self.from = from
        self.to = to
    }
}

/// What changes between two sets of assignments (one per subscriber): each slot re-pointed,
/// for the owners of the slots' rewriters, and the keyframe requests to send, coalesced: one
/// per video or screen-share stream that newly fills a slot, however many subscribers' slots
/// it fills in this batch.
public struct RoutingUpdate: Hashable, Sendable {
    /// By subscriber, then slot.
    public let changes: [SlotChange]
    /// Streams to ask for a keyframe, by publisher then kind.
    public let keyframeRequests: [PublishedStream]

    public init(from old: [Int: SlotAssignment], to new: [Int: SlotAssignment]) {
        var changes: [SlotChange] = []
        for subscriber in Set(old.keys).union(new.keys).sorted() {
            let (before, after) = (old[subscriber] ?? .empty, new[subscriber] ?? .empty)
            for slot in Set(before.sources.keys).union(after.sources.keys).sorted() {
                let (from, to) = (before.sources[slot], after.sources[slot])
                if from != to { changes.append(SlotChange(subscriber: subscriber, slot: slot, from: from, to: to)) }
            }
        }
        self.changes = changes
        let wanted = Set(changes.compactMap { $0.to }.filter { $0.kind.needsKeyframe })
        keyframeRequests = wanted.sorted { ($0.publisher, $0.kind.order) < ($1.publisher, $1.kind.order) }
    }
}

extension StreamKind {
    var order: Int { StreamKind.allCases.firstIndex(of: self)! }
}
