import Foundation

/// `session.json`, at the top of a session's recordings: whose they are. The control API
/// serves a session's recordings to this app only, also after the session has ended.
public struct RecordingSessionRecord: Codable, Hashable, Sendable {
    /// The app's key.
    public var app: String
    /// The session's id in the store.
    public var session: Int64
    public var name: String
    /// Unix milliseconds.
    public var createdAt: Int64

    public init(app: String, session: Int64, name: String, createdAt: Int64) {
        self.app = app
        self.session = session
        self.name = name
        self.createdAt = createdAt
    }

    func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return ((try? encoder.encode(self)) ?? Data()) + Data("\n".utf8)
    }
}

/// Why a recordings folder could not be used or read, in a sentence naming the file.
public struct RecordingLayoutError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: Int, Sendable {
        /// A folder or `session.json` could not be made.
        case unwritable = 1
        /// `session.json` is not a session record.
        case unreadable = 2
        /// The session's folder holds another app's or session's record.
        case notOwned = 3
    }

    public var code: Code
    public var reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}
