import Foundation

/// Reads a location's `timeline.jsonl` back: what the composer and the control API need of it.
public enum TimelineReader {
    /// One line, with the fields any event may carry.
    public struct Line: Decodable, Hashable, Sendable {
        public var t: Int64
        public var event: String
        public var location: String?
        public var wallClock: Int64?
        public var user: String?
        public var kind: String?
        public var file: String?
        public var codec: String?
        public var width: Int?
        public var height: Int?
        public var duration: Int64?
    }

    /// The lines of `bytes`. A last line without its newline is what a crash cut off, and is
    /// left out. With `strict`, a line that is not an event (not JSON, no `t` or `event`, a
    /// `fileStarted` without `user`, `kind` or `file`) or a first line other than
    /// `recordingStarted` is refused with its number; without, such lines are skipped.
    public static func lines(_ bytes: some Collection<UInt8>, strict: Bool) throws(TimelineReadError) -> [Line] {
        var lines: [Line] = []
        let pieces = Array(bytes).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (index, piece) in pieces.dropLast().enumerated() {
            let number = index + 1
            let line: Line
            do {
                line = try JSONDecoder().decode(Line.self, from: Data(piece))
            } catch {
                if strict { throw TimelineReadError(line: number, reason: "is not a timeline event (JSON with \"t\" and \"event\")") }
                continue
            }
            if line.event == "fileStarted", line.user == nil || line.kind.flatMap({ TimelineEvent.MediaKind(rawValue: $0) }) == nil || line.file == nil {
                if strict { throw TimelineReadError(line: number, reason: "is a fileStarted without its user, kind or file") }
                continue
            }
            if strict, number == 1, line.event != "recordingStarted" {
                throw TimelineReadError(line: 1, reason: "is \"\(line.event)\", not \"recordingStarted\"")
            }
            lines.append(line)
        }
        return lines
    }
}

/// Why a timeline cannot be read: the line and what is wrong with it.
public struct TimelineReadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The line's number from 1, or 0 for the file as a whole.
    public var line: Int
    public var reason: String

    public init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }

    public var description: String { line == 0 ? reason : "line \(line) \(reason)" }
}
