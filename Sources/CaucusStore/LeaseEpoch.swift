/// How many times a session's lease has changed hands: every acquisition by a new holder (or
/// after the lease expired) takes the next one. A write carries the epoch its node believes it
/// holds and is refused (`fenced`) unless it is still the session's current one, so a node
/// that lost its lease cannot write even if it wakes up later believing it has it.
public struct LeaseEpoch: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int64

    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// The epoch of a session whose lease was never taken; the first acquisition gives 1.
    public static let unleased = LeaseEpoch(rawValue: 0)

    public var next: LeaseEpoch { LeaseEpoch(rawValue: rawValue + 1) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "epoch \(rawValue)" }
}
