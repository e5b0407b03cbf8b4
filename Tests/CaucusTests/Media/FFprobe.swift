import Foundation
import Testing

/// Debian's `ffprobe`, a reader of the files nobody here wrote, for the recording tests
/// (scripts/test installs it; where it is missing, those checks are left out).
enum FFprobe {
    static let path = "/usr/bin/ffprobe"

    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// The file's duration in seconds, as ffprobe reads it.
    static func duration(of file: String) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try #require(Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)), "ffprobe on \(file)")
    }
}
