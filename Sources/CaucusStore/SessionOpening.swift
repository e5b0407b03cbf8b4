import CaucusCore

/// What the first append of a session records about it: its row in the sessions table.
public struct SessionOpening: Sendable, Hashable {
    public let app: String
    /// The name as the first joiner gave it (history shows the one the session started with).
    public let name: String
    public let createdAt: Instant

    public init(app: String, name: String, createdAt: Instant) {
        self.app = app
        self.name = name
        self.createdAt = createdAt
    }

    /// The form the database keeps one live session per app of.
    public var nameKey: String { SessionName.key(name) }
}
