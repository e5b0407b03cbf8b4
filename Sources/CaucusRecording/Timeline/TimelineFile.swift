import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    ///
    /// A file that holds no whole line is removed, and nil returned: its first line was cut
    /// off as it was written (a full disk, a crash right after the file was made), so nothing
    /// in it can be gone on with, and left there it would keep every later start of the
    /// location from making its timeline (files are never created over others).
    public static func continuing(at path: String) throws(RecordingFileError) -> (file: TimelineFile, wallClock: Int64)? {
        if holdsNoWholeLine(at: path) {
            guard unlink(path) == 0 || errno == ENOENT else { throw RecordingFileError(errno: errno, operation: .create, path: path) }
            return nil
        }
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

    /// Whether the file exists, is shorter than ``firstLineLimit`` and has no newline.
    static func holdsNoWholeLine(at path: String) -> Bool {
        guard let bytes = leadingBytes(of: path, upTo: firstLineLimit) else { return false }
        return bytes.count < firstLineLimit && !bytes.contains(UInt8(ascii: "\n"))
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

/// The file's first `limit` bytes (all of a shorter one), or nil when it cannot be opened or read.
private func leadingBytes(of path: String, upTo limit: Int) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: limit)
    var count = 0
    while count < limit {
        let got: Int = bytes.withUnsafeMutableBytes { buffer in systemRead(descriptor, buffer.baseAddress! + count, limit - count) }
        if got < 0, errno == EINTR { continue }
        guard got >= 0 else { return nil }
        if got == 0 { break }
        count += got
    }
    return Array(bytes[..<count])
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
