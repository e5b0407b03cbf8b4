import Foundation

/// Where a server keeps its recordings, for the code that writes them and the code that reads,
/// serves and deletes them (docs/recording.md, "On disk"):
///
/// ```
/// <data>/recordings/<session>/session.json           whose session: app, id, name, creation
/// <data>/recordings/<session>/<location>/timeline.jsonl
/// <data>/recordings/<session>/<location>/<user>-<kind>-<index>.webm   (.mkv: H.264)
/// ```
///
/// `<session>` is the session's id in the store (`GET /v1/sessions`): unique for the store's
/// life, where a session's name comes back with every new session of that name. `<location>`
/// is `main` or `room-<id>`. Every name in a path is checked here before it reaches the file
/// system, so no request can name a file outside the folder.
public struct RecordingLayout: Sendable {
    public static let folderName = "recordings"
    public static let sessionFileName = "session.json"
    public static let timelineFileName = "timeline.jsonl"
    /// The extensions of recorded files: WebM (Opus, VP8) and Matroska (H.264).
    public static let mediaFileExtensions = ["webm", "mkv"]

    /// `<data>/recordings`.
    public let root: String

    public init(dataDirectory: String) {
        root = dataDirectory + "/" + Self.folderName
    }

    public func sessionFolder(_ session: Int64) -> String {
        root + "/" + String(session)
    }

    public func locationFolder(session: Int64, location: RecordingLocation) -> String {
        sessionFolder(session) + "/" + location.name
    }

    /// The base name ``TrackRecordingFiles`` gives a user's track: `u7-video` makes
    /// `u7-video-0.webm`. `user` is the user's id as the timeline writes it (`u7`); any
    /// character a file name should not hold becomes `_`.
    public static func baseName(user: String, kind: TimelineEvent.MediaKind) -> String {
        let safe = String(user.unicodeScalars.map { isNameCharacter($0) && $0 != "." ? Character($0) : "_" })
        return (safe.isEmpty ? "_" : safe) + "-" + kind.rawValue
    }

    /// Makes the location's folder (and its session's, with `session.json` the first time),
    /// for a recording about to start. A `session.json` of another app or session is refused:
    /// the folder belongs to someone else.
    public func prepare(_ record: RecordingSessionRecord, location: RecordingLocation) throws(RecordingLayoutError) -> String {
        try Self.makeFolder(sessionFolder(record.session))
        let path = sessionFolder(record.session) + "/" + Self.sessionFileName
        if let existing = try Self.record(at: path) {
            guard existing.app == record.app, existing.session == record.session else {
                throw RecordingLayoutError(.notOwned, "\(path) belongs to session \(existing.session) of another app")
            }
        } else if !FileManager.default.createFile(atPath: path, contents: record.encoded(), attributes: [.posixPermissions: 0o600]) {
            throw RecordingLayoutError(.unwritable, "\(path) cannot be written")
        }
        let folder = locationFolder(session: record.session, location: location)
        try Self.makeFolder(folder)
        return folder
    }

    private static func makeFolder(_ path: String) throws(RecordingLayoutError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw RecordingLayoutError(.unwritable, "\(path) cannot be made: \(error.localizedDescription)")
        }
    }

    /// The session's `session.json`, or nil when the session has no recordings here (or its
    /// folder or record is a symbolic link: never followed).
    public func record(of session: Int64) throws(RecordingLayoutError) -> RecordingSessionRecord? {
        let path = sessionFolder(session) + "/" + Self.sessionFileName
        guard Self.isRealFolder(sessionFolder(session)), Self.kind(of: path) == S_IFREG else { return nil }
        return try Self.record(at: path)
    }

    private static func record(at path: String) throws(RecordingLayoutError) -> RecordingSessionRecord? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        guard let record = try? JSONDecoder().decode(RecordingSessionRecord.self, from: data) else {
            throw RecordingLayoutError(.unreadable, "\(path) is not a session record")
        }
        return record
    }

    /// The locations with a folder under the session's, in order (main first, then rooms by id).
    public func locations(of session: Int64) -> [RecordingLocation] {
        guard Self.isRealFolder(sessionFolder(session)) else { return [] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: sessionFolder(session))) ?? []
        return names.compactMap { RecordingLocation(name: $0) }.filter { location in
            Self.isRealFolder(locationFolder(session: session, location: location))
        }.sorted()
    }

    /// Whether a name from a request may name a file of a location: `timeline.jsonl`, or a
    /// media file's name (``isMediaFileName(_:)``).
    public static func isFileName(_ name: String) -> Bool {
        name == timelineFileName || isMediaFileName(name)
    }

    /// Whether `name` is a `.webm` or `.mkv` name of letters, digits, `_` and `-` (never `/`,
    /// `..`, a leading dot, or NUL).
    public static func isMediaFileName(_ name: String) -> Bool {
        guard name.count <= 200, let stem = mediaStem(of: name) else { return false }
        return !stem.isEmpty && stem.unicodeScalars.allSatisfy { isNameCharacter($0) && $0 != "." }
    }

    /// The name without its media extension (`u7-audio-0.webm`: `u7-audio-0`), or nil.
    private static func mediaStem(of name: String) -> Substring? {
        for fileExtension in mediaFileExtensions where name.hasSuffix("." + fileExtension) {
            return name.dropLast(fileExtension.count + 1)
        }
        return nil
    }

    /// The kind a file's name ends in (`u7-audio-0.webm`: audio), or nil.
    public static func kind(ofFileName name: String) -> TimelineEvent.MediaKind? {
        guard let stem = mediaStem(of: name) else { return nil }
        let parts = stem.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 3, let index = parts.last, !index.isEmpty, index.allSatisfy(\.isNumber) else { return nil }
        return TimelineEvent.MediaKind(rawValue: String(parts[parts.count - 2]))
    }

    /// A media file's base name and index (`u7-video-3.mkv`: `u7-video`, 3), or nil for any
    /// other name. WebM and Matroska files of one base name share one sequence of indexes.
    /// An index has at most nine digits: a name with more (`…-9223372036854775807.webm`) was not
    /// written here, and counting on from it would leave 64 bits.
    public static func baseNameAndIndex(ofFileName name: String) -> (baseName: Substring, index: Int)? {
        guard let stem = mediaStem(of: name), let dash = stem.lastIndex(of: "-"), dash > stem.startIndex else { return nil }
        let digits = stem[stem.index(after: dash)...]
        guard (1...9).contains(digits.count), digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), let index = Int(digits) else { return nil }
        return (stem[..<dash], index)
    }

    /// A path's real file: the file exists, is a regular file and no part of the path below
    /// `root` is a symbolic link (so a link planted there cannot lead outside it).
    public func regularFile(session: Int64, location: RecordingLocation, name: String) -> String? {
        guard Self.isFileName(name) else { return nil }
        let sessionPath = sessionFolder(session)
        let locationPath = sessionPath + "/" + location.name
        let file = locationPath + "/" + name
        guard Self.isRealFolder(sessionPath), Self.isRealFolder(locationPath), Self.kind(of: file) == S_IFREG else { return nil }
        return file
    }

    public static func isRealFolder(_ path: String) -> Bool { kind(of: path) == S_IFDIR }

    /// The file type `lstat` reports (a symbolic link is `S_IFLNK`, not what it points to).
    static func kind(of path: String) -> mode_t? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return status.st_mode & S_IFMT
    }

    private static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "_", "-", ".": true
        default: false
        }
    }
}

/// `main`, or a breakout room: the folder a location's files and timeline lie in.
public enum RecordingLocation: Hashable, Sendable, Comparable {
    case main
    case room(Int)

    /// `main` or `room-<id>`, as folders and the timeline's `location` name them.
    public var name: String {
        switch self {
        case .main: "main"
        case .room(let id): "room-\(id)"
        }
    }

    /// The location a folder or a request names; nil for anything else (`room-01`, `../x`, …).
    public init?(name: String) {
        if name == "main" {
            self = .main
            return
        }
        guard name.hasPrefix("room-"), let id = Int(name.dropFirst(5)), id > 0, "room-\(id)" == name else { return nil }
        self = .room(id)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.main, .room): true
        case (.room(let a), .room(let b)): a < b
        default: false
        }
    }
}
