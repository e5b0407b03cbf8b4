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
    public static func continuing(at path: String) throws(RecordingFileError) -> (file: TimelineFile, wallClock: Int64)? {
        guard let data = FileManager.default.contents(atPath: path),
            let first = try? TimelineReader.lines(data, strict: false).first, first.event == "recordingStarted",
            let wallClock = first.wallClock
        else { return nil }
        return (TimelineFile(file: try AppendOnlyFile(continuingLinesAt: path)), wallClock)
    }

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
