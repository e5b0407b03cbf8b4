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

    /// The first video stream's codec and size, as ffprobe reads them.
    static func videoStream(of file: String) throws -> (codec: String, width: Int, height: Int) {
        let fields = try run(path, ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", file])
            .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
        try #require(fields.count == 3, "ffprobe on \(file): \(fields)")
        return (String(fields[0]), Int(fields[1]) ?? 0, Int(fields[2]) ?? 0)
    }

    /// How many packets (frames) the file's first stream holds, as ffprobe counts them.
    static func packetCount(of file: String) throws -> Int {
        let count = try run(path, ["-v", "error", "-count_packets", "-select_streams", "0", "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", file])
        return try #require(Int(count.trimmingCharacters(in: .whitespacesAndNewlines)), "ffprobe on \(file): \(count)")
    }

    /// What FFmpeg says while decoding the whole file ("" when every frame decodes).
    static func decodingErrors(of file: String) throws -> String {
        try run("/usr/bin/ffmpeg", ["-v", "error", "-i", file, "-f", "null", "-"], errors: true)
    }

    /// A tool's standard output, or with `errors` its standard error.
    private static func run(_ executable: String, _ arguments: [String], errors: Bool = false) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let output = Pipe()
        if errors {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = output
        } else {
            process.standardOutput = output
        }
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
