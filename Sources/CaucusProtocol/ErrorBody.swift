import CaucusCore

/// The `error` member of a reply: `{code, name, message}`, as `docs/errors.md` lists them.
public struct ErrorBody: Hashable, Sendable, Codable {
    public let code: Int
    public let name: String
    public let message: String
    /// For a refused commit, withdraw, start or stop: the seed's failure status
    /// (`commitFailed`, …) that the one who tried reports.
    public let status: SubsessionStatus?
    /// For `otherNode`: the WebSocket URL of the node that serves the session, where the
    /// client sends the same `join` or `resume` again.
    public let url: String?

    public init(code: Int, name: String, message: String, status: SubsessionStatus? = nil, url: String? = nil) {
        self.code = code
        self.name = name
        self.message = message
        self.status = status
        self.url = url
    }

    public init(_ error: CaucusError, status: SubsessionStatus? = nil, url: String? = nil) {
        self.init(code: error.code.rawValue, name: error.name, message: error.message, status: status, url: url)
    }
}
