import Foundation

/// A location's timeline file: created next to its recordings (never over an existing one),
/// each event appended as one line at once, so a crash loses no event that was written.
/// Owned by one caller at a time; not Sendable.
public final class TimelineFile {
    private let file: AppendOnlyFile

    public var path: String { file.path }

    /// Creates the file and writes the first line, ``TimelineEvent/What/recordingStarted(location:wallClock:)``.
    public init(creatingAt path: String, location: String, wallClock: Int64) throws(RecordingFileError) {
        file = try AppendOnlyFile(creatingAt: path)
        try append(TimelineEvent(time: 0, .recordingStarted(location: location, wallClock: wallClock)))
    }

    /// Opens an existing timeline to go on with it (its location recorded again, by this
    /// server or by the one that took the session over): a last line a crash cut off is cut
    /// away. Returns the file and the `wallClock` of its first line, which stays the clock's 0.
    /// Only the first line is read: a timeline grows with every speaker change and move, and
    /// a location recorded again after hours would otherwise read and decode all of it.
    public static func continuing(at path: String) throws(RecordingFileError) -> (file: TimelineFile, wallClock: Int64)? {
        guard let line = firstLine(at: path),
            let first = try? TimelineReader.lines(line, strict: false).first, first.event == "recordingStarted",
            let wallClock = first.wallClock
        else { return nil }
        return (TimelineFile(file: try AppendOnlyFile(continuingLinesAt: path)), wallClock)
    }

    /// The file's first line with its newline, or nil when it cannot be read or has no whole
    /// line within ``firstLineLimit`` bytes (a first line this server wrote is far shorter).
    static func firstLine(at path: String) -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var bytes: [UInt8] = []
        while bytes.count < firstLineLimit {
            guard let chunk = try? handle.read(upToCount: 4_096), !chunk.isEmpty else { return nil }
            if let newline = chunk.firstIndex(of: UInt8(ascii: "\n")) {
                bytes += chunk[...newline]
                return bytes
            }
            bytes += chunk
        }
        return nil
    }

    static let firstLineLimit = 64 << 10

    private init(file: AppendOnlyFile) {
        self.file = file
    }

    public func append(_ event: TimelineEvent) throws(RecordingFileError) {
        try file.append(TimelineEncoder.line(event))
    }

    public func close() {
        file.close()
    }
}
