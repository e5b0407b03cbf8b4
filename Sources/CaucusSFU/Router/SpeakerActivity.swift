import CaucusMedia

/// What the router knows of one publisher's voice, to choose who fills the slots.
public struct SpeakerActivity: Hashable, Sendable {
    /// The latest RFC 6464 audio level, in -dBov: 0 is the loudest, 127 silence. Nil when the
    /// publisher's client sends no level.
    public var audioLevel: UInt8?
    /// When the publisher last spoke, on the caller's monotonic clock; nil if never.
    public var lastSpoke: Duration?

    public init(audioLevel: UInt8? = nil, lastSpoke: Duration? = nil) {
        self.audioLevel = audioLevel
        self.lastSpoke = lastSpoke
    }
}

/// The order in which eligible streams deserve a slot.
///
/// - Audio: the loudest first (by RFC 6464 level; a known level before an unknown one), then
///   the most recent speakers, then the caller's order.
/// - Video: the most recent speakers first, then the caller's order.
/// - Screen share: the caller's order (the server passes publishers in join order), so a new
///   share never takes the slot from one being watched; the stable assignment keeps it.
enum SlotPreference {
    static func ranked(_ streams: [PublishedStream], kind: StreamKind, activity: [Int: SpeakerActivity]) -> [PublishedStream] {
        let indexed = Array(streams.enumerated())
        let sorted = indexed.sorted { left, right in
            let (a, b) = (activity[left.element.publisher], activity[right.element.publisher])
            if kind == .audio, let order = louder(a?.audioLevel, b?.audioLevel) { return order }
            if kind != .screenShare, let order = moreRecent(a?.lastSpoke, b?.lastSpoke) { return order }
            return left.offset < right.offset
        }
        return sorted.map(\.element)
    }

    /// Whether `a` ranks before `b` by level, or nil when they tie.
    private static func louder(_ a: UInt8?, _ b: UInt8?) -> Bool? {
        switch (a, b) {
        case (let a?, let b?): a == b ? nil : a < b
        case (.some, nil): true
        case (nil, .some): false
        case (nil, nil): nil
        }
    }

    private static func moreRecent(_ a: Duration?, _ b: Duration?) -> Bool? {
        switch (a, b) {
        case (let a?, let b?): a == b ? nil : a > b
        case (.some, nil): true
        case (nil, .some): false
        case (nil, nil): nil
        }
    }
}
