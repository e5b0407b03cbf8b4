public import CaucusCore

/// An app (tenant): the key its tokens name in `app_key` and the secret they are signed with.
public struct AppCredentials: Sendable, Hashable, Codable {
    public let key: String
    public let secret: String
    public var limits: SessionLimits
    /// Live sessions the app may have at once on one node; a join that would open one more
    /// is refused (`tooManySessions`). Each live session costs memory whether or not anyone
    /// is in it, so one app cannot take a node's memory by opening names.
    public var maxSessions: Int

    /// The default of `maxSessions`.
    public static let standardMaxSessions = 1_000

    public init(key: String, secret: String, limits: SessionLimits = .standard, maxSessions: Int = Self.standardMaxSessions) {
        self.key = key
        self.secret = secret
        self.limits = limits
        self.maxSessions = maxSessions
    }

    /// The file in the server's data directory that holds the development app, written by
    /// `caucus serve` on first start and read by `caucus token`; one name so both agree.
    public static let developmentFileName = "development-app.json"

    private enum CodingKeys: String, CodingKey {
        case key, secret, limits, maxSessions
    }

    // Written by hand only so that a file holding just a key and a secret gets the standard limits.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decode(String.self, forKey: .key)
        secret = try container.decode(String.self, forKey: .secret)
        limits = try container.decodeIfPresent(SessionLimits.self, forKey: .limits) ?? .standard
        // Read as any JSON number first: Foundation reports 1.5 for an Int as JSON that is not
        // JSON at all, with no field named; this names it.
        if let number = try container.decodeIfPresent(Double.self, forKey: .maxSessions) {
            guard let whole = Int(exactly: number) else {
                throw DecodingError.typeMismatch(
                    Int.self, .init(codingPath: container.codingPath + [CodingKeys.maxSessions], debugDescription: "\(number) is not a whole number"))
            }
            maxSessions = whole
        } else {
            maxSessions = Self.standardMaxSessions
        }
    }
}

// Credentials end up in log lines and test failure messages; the secret must not.
extension AppCredentials: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "AppCredentials(key: \(key), secret: <redacted>)" }
    public var debugDescription: String { description }
}
