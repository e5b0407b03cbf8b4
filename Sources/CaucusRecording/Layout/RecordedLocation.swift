import Foundation

/// One location's recordings as they lie in its folder: each WebM (or Matroska) file with what the timeline
/// says of it (who, which kind, where it starts on the location's clock) and its size and length.
public struct RecordedLocation: Hashable, Sendable {
    public struct File: Hashable, Sendable {
        public var name: String
        /// Nil for a file the timeline does not name (a crash between the file and its line).
        public var user: String?
        public var kind: TimelineEvent.MediaKind?
        public var codec: String?
        /// Milliseconds on the location's clock of the file's time 0 (its `fileStarted` `t`).
        public var start: Int64?
        /// From its `fileEnded`, else from the file's header (still being written, or cut off by a crash).
        public var durationMilliseconds: Int64?
        public var bytes: Int64
        /// Whether its `fileEnded` was written.
        public var ended: Bool
    }

    public var folder: String
    /// The location the timeline names (`main`, `room-2`).
    public var location: String?
    /// Unix milliseconds of the location clock's 0.
    public var wallClock: Int64?
    public var files: [File]
    /// The timeline's size in bytes; nil when there is none.
    public var timelineBytes: Int64?

    /// Reads `folder`. With `strict`, a missing timeline or a bad line is refused
    /// (``TimelineReadError``); without, what can be read is listed.
    public static func read(folder: String, strict: Bool) throws(TimelineReadError) -> RecordedLocation {
        let timelinePath = folder + "/" + RecordingLayout.timelineFileName
        var lines: [TimelineReader.Line] = []
        var timelineBytes: Int64?
        if RecordingLayout.kind(of: timelinePath) == S_IFREG, let data = FileManager.default.contents(atPath: timelinePath) {
            lines = try TimelineReader.lines(data, strict: strict)
            timelineBytes = Int64(data.count)
        } else if strict {
            throw TimelineReadError(line: 0, reason: "\(folder) has no \(RecordingLayout.timelineFileName)")
        }
        var started: [String: TimelineReader.Line] = [:]
        var ended: [String: Int64] = [:]
        for line in lines {
            guard let file = line.file else { continue }
            if line.event == "fileStarted" { started[file] = line }
            if line.event == "fileEnded", let duration = line.duration { ended[file] = duration }
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            RecordingLayout.isMediaFileName($0) && RecordingLayout.kind(of: folder + "/" + $0) == S_IFREG
        }
        let files = names.map { name -> File in
            let path = folder + "/" + name
            let bytes = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
            let start = started[name]
            return File(
                name: name, user: start?.user, kind: start?.kind.flatMap { TimelineEvent.MediaKind(rawValue: $0) }, codec: start?.codec,
                start: start?.t, durationMilliseconds: ended[name] ?? WebMDurationReader.durationMilliseconds(ofFileAt: path),
                bytes: bytes, ended: ended[name] != nil)
        }.sorted { ($0.start ?? .max, $0.name) < ($1.start ?? .max, $1.name) }
        let first = lines.first { $0.event == "recordingStarted" }
        return RecordedLocation(
            folder: folder, location: first?.location, wallClock: first?.wallClock, files: files, timelineBytes: timelineBytes)
    }
}
