/// A point in time as the shell saw it, in milliseconds since the Unix epoch.
/// The core never reads a clock: every instant it knows came in with a command.
public struct Instant: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }
    public init(seconds: Int64) { self.milliseconds = seconds * 1000 }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.milliseconds < rhs.milliseconds }

    public func adding(seconds: Int) -> Instant {
        Instant(milliseconds: milliseconds &+ Int64(seconds) &* 1000)
    }

    /// Whole seconds from `self` until `later`, rounded up, never negative.
    public func secondsUntil(_ later: Instant) -> Int {
        let delta = later.milliseconds - milliseconds
        guard delta > 0 else { return 0 }
        return Int((delta + 999) / 1000)
    }

    public var description: String { "t\(milliseconds)ms" }

    public init(from decoder: any Decoder) throws { milliseconds = try decoder.singleValueContainer().decode(Int64.self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(milliseconds)
    }
}
