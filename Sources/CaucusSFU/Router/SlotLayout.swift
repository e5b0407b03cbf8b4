import CaucusMedia

/// The receive slots every subscriber negotiates once: a few audio slots (the loudest
/// speakers), some video slots (the latest speakers), one screen-share slot. A move, a pause or
/// a mute changes what fills them, never how many there are.
public struct SlotLayout: Hashable, Sendable {
    public let audio: Int
    public let video: Int
    public let screenShare: Int

    public init(audio: Int = 3, video: Int = 4, screenShare: Int = 1) {
        precondition(audio >= 0 && video >= 0 && screenShare >= 0, "a slot count is never negative")
        self.audio = audio
        self.video = video
        self.screenShare = screenShare
    }

    public static let standard = SlotLayout()

    public func count(of kind: StreamKind) -> Int {
        switch kind {
        case .audio: audio
        case .video: video
        case .screenShare: screenShare
        }
    }

    /// Every slot, audio first, each kind's slots by index.
    public var slots: [SlotID] {
        StreamKind.allCases.flatMap { kind in (0..<count(of: kind)).map { SlotID(kind: kind, index: $0) } }
    }
}

/// One receive slot of a subscriber: its kind and its index among that kind's slots.
public struct SlotID: Hashable, Sendable, Codable, Comparable {
    public let kind: StreamKind
    public let index: Int

    public init(kind: StreamKind, index: Int) {
        self.kind = kind
        self.index = index
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        let order = StreamKind.allCases
        let (left, right) = (order.firstIndex(of: lhs.kind)!, order.firstIndex(of: rhs.kind)!)
        return left != right ? left < right : lhs.index < rhs.index
    }
}
