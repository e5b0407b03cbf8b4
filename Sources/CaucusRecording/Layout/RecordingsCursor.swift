/// Where a page of a session's recordings listing ended: the last file it listed, as the
/// listing orders files — by location (`main`, then rooms by id), then by start on the
/// location's clock (files the timeline does not name last), then by name. The next page
/// lists what comes after it in that order, so a page is right even when files were added or
/// deleted between two requests (a file never changes location, start or name).
///
/// Clients read it as an opaque string (`next` in one answer, `after` in the next request);
/// it is `<location>/<start>/<file>`, `-` for no start.
public struct RecordingsCursor: Hashable, Sendable, Comparable {
    public var location: RecordingLocation
    /// Milliseconds on the location's clock; nil for a file the timeline does not name.
    public var start: Int64?
    public var file: String

    public init(location: RecordingLocation, start: Int64?, file: String) {
        self.location = location
        self.start = start
        self.file = file
    }

    /// A cursor this server gave, or nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, let location = RecordingLocation(name: String(parts[0])) else { return nil }
        let start: Int64?
        if parts[1] == "-" {
            start = nil
        } else {
            guard let value = Int64(parts[1]), "\(value)" == parts[1] else { return nil }
            start = value
        }
        let file = String(parts[2])
        guard RecordingLayout.isMediaFileName(file) else { return nil }
        self.init(location: location, start: start, file: file)
    }

    public var text: String { "\(location.name)/\(start.map { "\($0)" } ?? "-")/\(file)" }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        if lhs.location != rhs.location { return lhs.location < rhs.location }
        // No start sorts last, as in RecordedLocation's order.
        let (left, right) = (lhs.start ?? .max, rhs.start ?? .max)
        if left != right { return left < right }
        return lhs.file < rhs.file
    }
}
