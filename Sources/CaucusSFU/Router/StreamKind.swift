import CaucusMedia

/// The kinds of stream a subscriber has receive slots for. The router takes plain values (it
/// knows nothing of sessions); the server maps the core's `MediaKind` to this one by name.
public enum StreamKind: String, Hashable, Sendable, Codable, CaseIterable {
    case audio
    case video
    case screenShare

    /// The RTP clock rate: Opus's 48 kHz, or the 90 kHz every video codec uses.
    public var clockRate: UInt32 {
        switch self {
        case .audio: 48_000
        case .video, .screenShare: 90_000
        }
    }

    /// Whether a receiver needs a keyframe before it can show a new source.
    public var needsKeyframe: Bool { self != .audio }

    // Hashed and compared by case: the defaults of an enum with a raw value hash and compare
    // the raw String, in every lookup keyed by a stream on the packet path.
    public func hash(into hasher: inout Hasher) { hasher.combine(ordinal) }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.ordinal == rhs.ordinal }

    private var ordinal: UInt8 {
        switch self {
        case .audio: 0
        case .video: 1
        case .screenShare: 2
        }
    }
}

/// One publisher's stream of one kind: what a slot carries.
public struct PublishedStream: Hashable, Sendable, Codable {
    /// The publisher's user id, as the session numbers users.
    public let publisher: Int
    public let kind: StreamKind

    public init(publisher: Int, kind: StreamKind) {
        self.publisher = publisher
        self.kind = kind
    }
}
