import CaucusProcessTestSupport
import Foundation

/// Debian's FFmpeg and MKVToolNix, run as processes: readers of the files nobody here wrote.
/// scripts/test installs them (ffmpeg, mkvtoolnix).
enum OracleTools {
    static let ffprobe = "/usr/bin/ffprobe"
    static let ffmpeg = "/usr/bin/ffmpeg"
    static let mkvmerge = "/usr/bin/mkvmerge"
    static let mkvinfo = "/usr/bin/mkvinfo"

    static var available: Bool {
        [ffprobe, ffmpeg, mkvmerge, mkvinfo].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let missing = "needs ffprobe, ffmpeg (Debian ffmpeg) and mkvinfo, mkvmerge (Debian mkvtoolnix): scripts/test installs them"

    struct Result: Sendable {
        var status: Int32
        var output: Data
        var errors: String
        var text: String { String(decoding: output, as: UTF8.self) }
    }

    /// Runs `executable`; `environment` replaces this process's when given.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) async throws -> Result {
        try await offThePool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            if let environment { process.environment = environment }
            let output = Pipe()
            // Errors to a file, so that only one pipe needs draining while the child runs.
            let errorsURL = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-oracle-\(UUID().uuidString)")
            guard FileManager.default.createFile(atPath: errorsURL.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
            defer { try? FileManager.default.removeItem(at: errorsURL) }
            let errors = try FileHandle(forWritingTo: errorsURL)
            defer { try? errors.close() }
            process.standardOutput = output
            process.standardError = errors
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let errorData = (try? Data(contentsOf: errorsURL)) ?? Data()
            return Result(status: process.terminationStatus, output: data, errors: String(decoding: errorData, as: UTF8.self))
        }
    }

    /// ffprobe's JSON of a file's format and streams.
    static func probe(_ path: String) async throws -> (status: Int32, format: [String: Any], streams: [[String: Any]], errors: String) {
        let result = try await run(ffprobe, ["-v", "error", "-show_format", "-show_streams", "-of", "json", path])
        let object = (try? JSONSerialization.jsonObject(with: result.output)) as? [String: Any] ?? [:]
        return (result.status, object["format"] as? [String: Any] ?? [:], object["streams"] as? [[String: Any]] ?? [], result.errors)
    }

    /// How many frames FFmpeg decodes from the file's first stream.
    static func decodedFrames(_ path: String) async throws -> (status: Int32, frames: Int, errors: String) {
        let result = try await run(
            ffprobe, ["-v", "error", "-count_frames", "-select_streams", "0", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        return (result.status, Int(result.text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1, result.errors)
    }
}
