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

    public func append(_ event: TimelineEvent) throws(RecordingFileError) {
        try file.append(TimelineEncoder.line(event))
    }

    public func close() {
        file.close()
    }
}
