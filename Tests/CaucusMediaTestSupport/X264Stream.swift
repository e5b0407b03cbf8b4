import CaucusMedia
import CaucusProcessTestSupport
import Foundation

/// Real H.264 from x264 (Debian's `ffmpeg` links libx264; scripts/test installs it): FFmpeg's
/// test picture encoded as an Annex B byte stream, cut into access units as an encoder hands
/// them to a sender.
public enum X264Stream {
    public static let ffmpeg = "/usr/bin/ffmpeg"

    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: ffmpeg) }

    /// The access units of `seconds` of a `width`×`height` picture at `rate` frames a second,
    /// an IDR every `keyframeInterval` frames, no B-frames (WebRTC's order: decode order is
    /// presentation order). `options` go to ffmpeg before the output (a profile, x264's
    /// parameters, a pixel format other than 4:2:0).
    public static func accessUnits(
        width: Int, height: Int, rate: Int = 10, seconds: Double = 1, keyframeInterval: Int = 10, options: [String] = []
    ) async throws -> [[UInt8]] {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-x264-\(UUID().uuidString).h264")
        defer { try? FileManager.default.removeItem(at: output) }
        let pixelFormat = options.contains("-pix_fmt") ? [] : ["-pix_fmt", "yuv420p"]
        let errors = try await run(
            ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=\(width)x\(height):rate=\(rate)", "-t", String(seconds)] + pixelFormat
                + ["-c:v", "libx264", "-bf", "0", "-g", String(keyframeInterval)] + options
                + ["-bsf:v", "h264_mp4toannexb", "-f", "h264", output.path])
        guard errors.isEmpty, let stream = FileManager.default.contents(atPath: output.path) else {
            throw EncodingFailed(errors: errors)
        }
        return split(H264AnnexB.nalUnits(in: [UInt8](stream)))
    }

    public struct EncodingFailed: Error, CustomStringConvertible {
        public var errors: String
        public var description: String { "ffmpeg (libx264) failed: \(errors)" }
    }

    /// Runs ffmpeg; its errors ("" when it succeeded).
    private static func run(_ arguments: [String]) async throws -> String {
        try await offThePool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: ffmpeg)
            process.arguments = arguments
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            let data = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let text = String(decoding: data, as: UTF8.self)
            return process.terminationStatus == 0 ? text : text + " (exit \(process.terminationStatus))"
        }
    }

    /// Access units from NAL units (H.264 §7.4.1.2.3): a new one starts at an SPS, PPS, SEI or
    /// delimiter after a slice, or at a slice whose first_mb_in_slice is 0 (its first bit 1).
    public static func split(_ units: [[UInt8]]) -> [[UInt8]] {
        var accessUnits: [[UInt8]] = []
        var current: [[UInt8]] = []
        var hasSlice = false
        for unit in units {
            let type = unit[0] & 0x1F
            let isSlice = type == 1 || type == 5
            if hasSlice, [6, 7, 8, 9].contains(type) || (isSlice && unit.count > 1 && unit[1] & 0x80 != 0) {
                accessUnits.append(H264AnnexB.stream(of: current))
                current = []
                hasSlice = false
            }
            current.append(unit)
            hasSlice = hasSlice || isSlice
        }
        if !current.isEmpty { accessUnits.append(H264AnnexB.stream(of: current)) }
        return accessUnits
    }

    /// The NAL units of an access unit of one type (7: SPS, 8: PPS, 5: IDR slice).
    public static func units(ofType type: UInt8, in accessUnit: [UInt8]) -> [[UInt8]] {
        H264AnnexB.nalUnits(in: accessUnit).filter { $0[0] & 0x1F == type }
    }

    public static func isKeyframe(_ accessUnit: [UInt8]) -> Bool { !units(ofType: 5, in: accessUnit).isEmpty }
}
