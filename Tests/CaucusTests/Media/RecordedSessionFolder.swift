import CaucusRecording
import Foundation

/// Where a test server's one recorded session keeps its files: `<data>/recordings/<session>/`.
enum RecordedSessionFolder {
    /// The folder of location `location` (`main`, `room-2`) of the only session recorded under
    /// `dataDirectory`; nil until the session's folder exists.
    static func location(_ location: String, in dataDirectory: String) -> String? {
        let root = dataDirectory + "/" + RecordingLayout.folderName
        guard let session = try? FileManager.default.contentsOfDirectory(atPath: root).first(where: { Int($0) != nil }) else { return nil }
        return root + "/" + session + "/" + location
    }
}
