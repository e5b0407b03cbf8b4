/// What a user can publish: its microphone, its camera, its screen.
public enum MediaKind: String, Hashable, Sendable, Codable, CaseIterable {
    case audio
    case video
    case screenShare
}

/// A set of media kinds: what one user publishes. Written on the wire as the kinds' names in
/// `MediaKind.allCases` order (`["audio", "video"]`), so the same set is always the same JSON.
public struct MediaKinds: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public init(_ kind: MediaKind) {
        switch kind {
        case .audio: rawValue = 1
        case .video: rawValue = 2
        case .screenShare: rawValue = 4
        }
    }

    public init(_ kinds: some Sequence<MediaKind>) {
        self = kinds.reduce(into: []) { $0.insert(MediaKinds($1)) }
    }

    public static let audio = MediaKinds(MediaKind.audio)
    public static let video = MediaKinds(MediaKind.video)
    public static let screenShare = MediaKinds(MediaKind.screenShare)
    public static let all: MediaKinds = [.audio, .video, .screenShare]

    public func contains(_ kind: MediaKind) -> Bool { contains(MediaKinds(kind)) }

    /// The kinds in the set, in `MediaKind.allCases` order.
    public var kinds: [MediaKind] { MediaKind.allCases.filter { contains($0) } }
}

extension MediaKinds: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode([MediaKind].self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(kinds)
    }
}
