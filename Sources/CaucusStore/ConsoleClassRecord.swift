import CaucusCore

/// What the server remembers of one of the console's classes that its codes cannot say:
/// whether it has opened or ended, and its host link's current generation. Kept in the
/// session store (`ConsoleClassStore`), so that every node of a cluster sees the same class,
/// and a restart forgets none. The field names are those of the `console-classes.json` file
/// older servers kept in their data folder, which a server imports once at its start.
public struct ConsoleClassRecord: Codable, Sendable, Hashable {
    public enum State: String, Codable, Sendable { case opened, started, ended }

    public let app: String
    /// The session name the class was made for, as its creator gave it.
    public let session: String
    /// The class id (`ConsoleClassCodes.newClassID`: 32 lowercase hex digits).
    public let id: String
    public var state: State
    public var hostGeneration: Int
    /// Milliseconds since 1970.
    public let createdAt: Int64
    public var startedAt: Int64?
    /// Whether a session running as this class was ever seen: after it, no session means ended.
    public var seenRunning: Bool

    public init(
        app: String, session: String, id: String, state: State, hostGeneration: Int, createdAt: Int64, startedAt: Int64? = nil,
        seenRunning: Bool = false
    ) {
        self.app = app
        self.session = session
        self.id = id
        self.state = state
        self.hostGeneration = hostGeneration
        self.createdAt = createdAt
        self.startedAt = startedAt
        self.seenRunning = seenRunning
    }

    /// The form names are compared in (`SessionName.key`).
    public var nameKey: String { SessionName.key(session) }
}
