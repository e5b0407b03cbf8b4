import CaucusCodecs
import CaucusProcessTestSupport
import Foundation
import Testing

/// What CaucusCodecs encodes decodes in an implementation nobody here wrote: FFmpeg's own VP8
/// and Opus decoders (through PyAV, which aiortc brings), not libvpx's and libopus's.
@Suite struct IndependentDecoderTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("ffmpeg_decode.py")

    /// Writes each packet length-prefixed (4 bytes, big-endian) to a file for the script.
    static func write(_ packets: [[UInt8]], to url: URL) throws {
        var data = Data()
        for packet in packets {
            withUnsafeBytes(of: UInt32(packet.count).bigEndian) { data.append(contentsOf: $0) }
            data.append(contentsOf: packet)
        }
        try data.write(to: url)
    }

    static func decode(_ codec: String, _ file: URL) async throws -> [String: Double] {
        let output = try await offThePool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", script.path, codec, file.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.standardError
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return data
        }
        return try JSONDecoder().decode([String: Double].self, from: output)
    }

    @Test func ffmpegDecodesOurVP8AndOpus() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-codecs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let frames = try VP8CodecTests.encodeColour(15, red: 40, green: 180, blue: 60)
        try Self.write(frames.map(\.data), to: folder.appendingPathComponent("video"))
        let video = try await Self.decode("vp8", folder.appendingPathComponent("video"))
        #expect(video["frames"] == 15 && video["width"] == 160 && video["height"] == 120, "\(video)")
        #expect(abs((video["red"] ?? 0) - 40) < 15 && abs((video["green"] ?? 0) - 180) < 15 && abs((video["blue"] ?? 0) - 60) < 15, "\(video)")

        let encoder = try OpusEncoder(bitsPerSecond: 64_000)
        let packets = try Signals.tone(660, frames: 50).map { try encoder.encode($0) }
        try Self.write(packets, to: folder.appendingPathComponent("audio"))
        let audio = try await Self.decode("opus", folder.appendingPathComponent("audio"))
        #expect(audio["packets"] == 50, "\(audio)")
        #expect(abs((audio["frequency"] ?? 0) - 660) < 660 * 0.02, "\(audio)")
    }
}
