import CaucusCore

/// The version of this protocol, sent by a client with `join` and `resume` (`"protocol": 1`).
/// A client that leaves it out speaks 1, as every client did before the field existed. A
/// server refuses a version it does not speak with 1013 `unsupportedProtocol`, before anything
/// else about the request, so a client learns why at once.
public enum ProtocolVersion {
    /// What this build speaks.
    public static let current = 1
    public static let supported: ClosedRange<Int> = 1...1

    static func check(_ requested: Int?) throws(CaucusError) {
        let version = requested ?? 1
        guard supported.contains(version) else {
            throw CaucusError(
                .unsupportedProtocol, "This server speaks protocol \(supported.lowerBound); the request asked for \(version).")
        }
    }
}
