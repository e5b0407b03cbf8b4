/// A `caucus serve` node as the store knows it: the holder of a session's lease. Chosen by
/// the node (configuration); the store only compares it.
public struct NodeID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public init(_ name: String) { self.rawValue = name }

    public var description: String { rawValue }
}
