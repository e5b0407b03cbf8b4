/// Why the server stopped recording on its own, with nobody asking: the media loop could not
/// write a location's files. The session goes on; only recording stops.
public enum RecordingStopReason: String, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// The disk holding the recordings is full (ENOSPC).
    case diskFull
    /// The app's share of the disk is used up (EDQUOT, or the server's own per-app quota).
    case quotaExceeded
    /// Any other write failure.
    case writeFailed

    /// One sentence for people: what the console and `caucus client` show.
    public var description: String {
        switch self {
        case .diskFull: "The server's disk is full."
        case .quotaExceeded: "The recording quota of this app is used up."
        case .writeFailed: "The server could not write the recording."
        }
    }
}

/// A stop the server made on its own: the locations it stopped recording and why.
public struct RecordingStop: Hashable, Sendable, Codable {
    public let locations: [Location]
    public let reason: RecordingStopReason

    public init(locations: [Location], reason: RecordingStopReason) {
        self.locations = RecordingSet.ordered(locations)
        self.reason = reason
    }
}
