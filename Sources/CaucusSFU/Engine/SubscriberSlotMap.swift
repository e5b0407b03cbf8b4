import CaucusMedia

/// What a subscriber is told of its receive slots: which publisher fills each one (by the
/// slot's section, its mid), and what it may receive but cannot decode. The shell turns it
/// into the `mediaSlots` frame (docs/protocol.md).
public struct SubscriberSlotMap: Hashable, Sendable {
    public struct Slot: Hashable, Sendable {
        public let mid: String
        public let kind: StreamKind
        /// The publisher filling the slot; nil when it is empty.
        public let publisher: Int?

        public init(mid: String, kind: StreamKind, publisher: Int?) {
            self.mid = mid
            self.kind = kind
            self.publisher = publisher
        }
    }

    public var slots: [Slot]
    /// Publications the subscriber may receive that none of its slots can carry (no codec of
    /// its answer matches the publisher's).
    public var unplayable: [PublishedStream]

    public init(slots: [Slot], unplayable: [PublishedStream] = []) {
        self.slots = slots
        self.unplayable = unplayable
    }

    public static let empty = SubscriberSlotMap(slots: [])
}
