import CaucusCore

/// The `error` member of a reply: `{code, name, message}`, as `docs/errors.md` lists them.
public struct ErrorBody: Hashable, Sendable, Codable {
    public let code: Int
    public let name: String
    public let message: String

    public init(code: Int, name: String, message: String) {
        self.code = code
        self.name = name
        self.message = message
    }

    public init(_ error: CaucusError) {
        self.init(code: error.code.rawValue, name: error.name, message: error.message)
    }
}
