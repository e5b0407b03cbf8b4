/// One publication a subscriber may receive: a publisher's audio, video or screen share.
public struct MediaSource: Hashable, Sendable, Codable {
    public let publisher: UserID
    public let kind: MediaKind

    public init(publisher: UserID, kind: MediaKind) {
        self.publisher = publisher
        self.kind = kind
    }
}
