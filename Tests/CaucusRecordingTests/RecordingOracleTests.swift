import Foundation
import Testing

@testable import CaucusRecording

/// Files written from real Opus and VP8 (libopus, libvpx) through RTP, the recorder and its
/// shell, read by programs nobody here wrote: FFmpeg (ffprobe, ffmpeg) and MKVToolNix
/// (mkvmerge, mkvinfo).
@Suite(.serialized, .enabled(if: OracleTools.available, Comment(rawValue: OracleTools.missing)))
struct RecordingOracleTests {
    static func double(_ value: Any?) -> Double? {
        (value as? String).flatMap(Double.init) ?? (value as? Double)
    }

    @Test func filesOfRealOpusAndVP8AreReadByFFmpegAndMKVToolNix() async throws {
        let ann = SyntheticPublisher(
            name: "ann", audioSSRC: 0xA0, videoSSRC: 0xB0, audioBase: 12_345, videoBase: 4_294_000_000,
            wallClockAtZero: 3_900_000_000, audio: 0...10, video: 0.2...10, largerVideoFrom: 6.0)
        let run = try RecordingRun.of([ann])

        // Each file, what it holds, and how long it lasts (truth, seconds).
        let expected: [(name: String, codec: String, width: Int?, seconds: Double, frames: Int)] = [
            ("ann-audio-0.webm", "opus", nil, 10, 501),
            ("ann-video-0.webm", "vp8", 160, 5.8, 87),
            ("ann-video-1.webm", "vp8", 320, 4.0, 61),
        ]
        for file in expected {
            let path = run.path(file.name)
            let probe = try await OracleTools.probe(path)
            #expect(probe.status == 0 && probe.errors.isEmpty, "\(file.name): \(probe.errors)")
            #expect((probe.format["format_name"] as? String)?.contains("webm") == true, "\(probe.format)")
            let stream = try #require(probe.streams.first, "\(file.name)")
            #expect(probe.streams.count == 1 && stream["codec_name"] as? String == file.codec, "\(stream)")
            if let width = file.width {
                #expect(stream["width"] as? Int == width && stream["height"] as? Int == width * 3 / 4, "\(stream)")
            } else {
                #expect(stream["sample_rate"] as? String == "48000" && stream["channels"] as? Int == 2, "\(stream)")
            }
            let duration = try #require(Self.double(probe.format["duration"]), "\(probe.format)")
            #expect(abs(duration - file.seconds) < 2, "\(file.name): \(duration) s, recorded \(file.seconds) s")

            let decode = try await OracleTools.run(OracleTools.ffmpeg, ["-v", "error", "-i", path, "-f", "null", "-"])
            #expect(decode.status == 0 && decode.errors.isEmpty, "\(file.name): \(decode.errors)")
            let decoded = try await OracleTools.decodedFrames(path)
            #expect(decoded.status == 0 && decoded.frames == file.frames, "\(file.name): \(decoded)")

            let identify = try await OracleTools.run(OracleTools.mkvmerge, ["-J", path])
            let json = try #require(try JSONSerialization.jsonObject(with: identify.output) as? [String: Any])
            let container = json["container"] as? [String: Any]
            let tracks = json["tracks"] as? [[String: Any]] ?? []
            let properties = tracks.first?["properties"] as? [String: Any]
            #expect(container?["recognized"] as? Bool == true && container?["supported"] as? Bool == true, "\(identify.text)")
            #expect(tracks.count == 1 && properties?["codec_id"] as? String == (file.codec == "opus" ? "A_OPUS" : "V_VP8"), "\(identify.text)")
            let info = try await OracleTools.run(OracleTools.mkvinfo, [path])
            #expect(info.status == 0 && info.text.contains("application: Caucus"), "\(info.text) \(info.errors)")
        }

        let events = try run.timelineEvents()
        #expect(events.first?["event"] as? String == "recordingStarted")
        let started = events.filter { $0["event"] as? String == "fileStarted" }.compactMap { $0["file"] as? String }
        #expect(Set(started) == Set(expected.map(\.name)))
        let ended = events.filter { $0["event"] as? String == "fileEnded" }
        #expect(ended.first { $0["file"] as? String == "ann-video-0.webm" }?["reason"] as? String == "resolutionChanged")
        #expect(run.counters(0xB0)?.framesWaitingForKeyframe == 0, "the first frame was a keyframe")
    }

    /// What `kill -9` leaves: the bytes the shell had written (whole clusters, the duration
    /// updated with each), with the last cluster never written.
    @Test func whatAKilledServerLeftProbesWithItsDuration() async throws {
        let bob = SyntheticPublisher(
            name: "bob", audioSSRC: 0xA1, videoSSRC: 0xB1, audioBase: 0, videoBase: 99,
            wallClockAtZero: 3_900_000_123.5, audio: 0...10, video: 0...10)
        let run = try RecordingRun.of([bob], until: 6.5, finish: false)
        for name in ["bob-audio-0.webm", "bob-video-0.webm"] {
            // A copy, as the files stay open: the process "died" here.
            let copy = run.path("killed-" + name)
            try FileManager.default.copyItem(atPath: run.path(name), toPath: copy)
            let probe = try await OracleTools.probe(copy)
            let duration = try #require(Self.double(probe.format["duration"]), "\(name): \(probe)")
            #expect(probe.status == 0 && abs(duration - 6.5) < 2, "\(name): \(duration) s of 6.5 s recorded")
            let decode = try await OracleTools.run(OracleTools.ffmpeg, ["-v", "error", "-i", copy, "-f", "null", "-"])
            #expect(decode.status == 0 && decode.errors.isEmpty, "\(name): \(decode.errors)")
        }
    }

    /// A file cut at arbitrary bytes past its header (a crash mid-write, a full disk) probes
    /// and decodes every frame of its whole clusters.
    @Test func aFileCutAtAnyByteStillPlaysUpToItsLastWholeCluster() async throws {
        let cy = SyntheticPublisher(
            name: "cy", audioSSRC: 0xA2, videoSSRC: 0xB2, audioBase: 7, videoBase: 7,
            wallClockAtZero: 3_900_000_000, audio: 0...5, video: 0...5)
        let run = try RecordingRun.of([cy])
        for (name, codec) in [("cy-video-0.webm", "vp8"), ("cy-audio-0.webm", "opus")] {
            let layout = try #require(run.layout[name])
            let bytes = try Data(contentsOf: URL(fileURLWithPath: run.path(name)))
            #expect(bytes.count == layout.blocks.last?.end, "the layout is the file's")
            let body = bytes.count - layout.header
            // Eight cuts spread over the file at odd places, and one at a cluster's very end.
            var cuts = (1...8).map { layout.header + body * $0 / 9 + $0 * 37 }
            if let boundary = layout.blocks.dropFirst(layout.blocks.count / 2).first(where: \.startsCluster) { cuts.append(boundary.offset) }
            for cut in cuts {
                let path = run.path("cut-\(cut)-" + name)
                try bytes.prefix(cut).write(to: URL(fileURLWithPath: path))
                let wholeClusterEnd = layout.blocks.filter { $0.startsCluster && $0.offset <= cut }.last?.offset ?? layout.header
                let inWholeClusters = layout.blocks.filter { $0.end <= wholeClusterEnd }.count
                let begun = layout.blocks.filter { $0.offset < cut }.count
                let probe = try await OracleTools.probe(path)
                #expect(probe.status == 0 && probe.streams.first?["codec_name"] as? String == codec, "\(name) cut at \(cut): \(probe.errors)")
                let decoded = try await OracleTools.decodedFrames(path)
                #expect(decoded.status == 0, "\(name) cut at \(cut): \(decoded.errors)")
                #expect(
                    decoded.frames >= inWholeClusters && decoded.frames <= begun,
                    "\(name) cut at \(cut): \(decoded.frames) frames decoded, \(inWholeClusters) in whole clusters, \(begun) begun")
            }
        }
    }
}
