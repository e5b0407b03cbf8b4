/// Identifiers are small integers handed out by the session itself, in order, so that
/// replaying a session's events reproduces them exactly. The phantom `Kind` keeps a user's
/// id from ever being passed where a room's is expected.
public struct Identifier<Kind: IdentifierKind>: RawRepresentable, Hashable, Comparable, Sendable, Codable,
    CustomStringConvertible
{
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public init(_ rawValue: Int) { self.rawValue = rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "\(Kind.prefix)\(rawValue)" }

    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(Int.self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

public protocol IdentifierKind: Sendable { static var prefix: String { get } }

public enum UserKind: IdentifierKind { public static let prefix = "u" }
public enum RoomKind: IdentifierKind { public static let prefix = "r" }
public enum HelpRequestKind: IdentifierKind { public static let prefix = "h" }
public enum MessageKind: IdentifierKind { public static let prefix = "m" }

public typealias UserID = Identifier<UserKind>
public typealias RoomID = Identifier<RoomKind>
public typealias HelpRequestID = Identifier<HelpRequestKind>
public typealias MessageID = Identifier<MessageKind>
