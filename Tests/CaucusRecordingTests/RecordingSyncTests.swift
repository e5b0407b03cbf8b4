import Foundation
import Testing

@testable import CaucusRecording

/// Audio and video of two publishers, whose wall clocks disagree by seconds and whose RTP
/// clocks start anywhere, clap together (a white frame and a tone burst at the same instant):
/// decoded by FFmpeg from the files and placed by the timeline's offsets, the claps agree.
@Suite(.serialized, .enabled(if: OracleTools.available, Comment(rawValue: OracleTools.missing)))
struct RecordingSyncTests {
    static let claps = [3.0, 5.0]

    /// The file times (s) at which the bursts begin: where FFmpeg's silence detector, on the
    /// decoded audio at its timestamps, sees each silence end. `-copyts` keeps the file's own
    /// times (ffmpeg otherwise moves a file's first timestamp to 0).
    static func audioClaps(_ path: String) async throws -> [Double] {
        let result = try await OracleTools.run(
            OracleTools.ffmpeg, ["-v", "info", "-nostats", "-copyts", "-i", path, "-af", "silencedetect=noise=0.05:duration=0.2", "-f", "null", "-"])
        #expect(result.status == 0, "\(result.errors)")
        // In order: (true, t) where a silence ends, (false, t) where one starts.
        let edges: [(ends: Bool, time: Double)] = result.errors.split(separator: "\n").compactMap { line in
            for (marker, ends) in [("silence_end: ", true), ("silence_start: ", false)] {
                if let range = line.range(of: marker), let time = Double(line[range.upperBound...].prefix { !$0.isWhitespace }) {
                    return (ends, time)
                }
            }
            return nil
        }
        // A burst is a silence's end with another silence after it (the last end is the file's).
        return edges.indices.filter { edges[$0].ends && edges[($0 + 1)...].contains { !$0.ends } }.map { edges[$0].time }
    }

    /// The file times (s) of the white frames: FFmpeg's mean luma of each decoded frame (of
    /// the part `crop` cuts out, an FFmpeg `crop=w:h:x:y`, when given).
    static func videoClaps(_ path: String, crop: String? = nil) async throws -> [Double] {
        let filter = (crop.map { $0 + "," } ?? "") + "signalstats,metadata=print:key=lavfi.signalstats.YAVG:file=-"
        let result = try await OracleTools.run(OracleTools.ffmpeg, ["-v", "error", "-copyts", "-i", path, "-vf", filter, "-f", "null", "-"])
        #expect(result.status == 0, "\(result.errors)")
        var times: [Double] = []
        var time: Double?
        for line in result.text.split(separator: "\n") {
            if let range = line.range(of: "pts_time:") {
                time = Double(line[range.upperBound...].trimmingCharacters(in: .whitespaces))
            } else if let range = line.range(of: "YAVG="), let luma = Double(line[range.upperBound...]), luma > 128, let time {
                times.append(time)
            }
        }
        return times
    }

    @Test func audioAndVideoOfTwoPublishersLandTogether() async throws {
        let ann = SyntheticPublisher(
            name: "ann", audioSSRC: 0xA3, videoSSRC: 0xB3, audioBase: 4_294_000_000, videoBase: 77,
            wallClockAtZero: 3_900_000_000, audio: 0.1...6.5, video: 0...6.5, claps: Self.claps)
        // Bob's wall clock is 7.25 s ahead of Ann's; his files start later than hers.
        let bob = SyntheticPublisher(
            name: "bob", audioSSRC: 0xA4, videoSSRC: 0xB4, audioBase: 5, videoBase: 4_000_000_000,
            wallClockAtZero: 3_900_000_007.25, audio: 0.5...6.5, video: 0.7...6.5, claps: Self.claps)
        let run = try RecordingRun.of([ann, bob])

        // Where each file's time 0 lies on the location's clock, from the timeline (ms).
        var offsets: [String: Double] = [:]
        for event in try run.timelineEvents() where event["event"] as? String == "fileStarted" {
            if let file = event["file"] as? String, let time = event["t"] as? Int { offsets[file] = Double(time) / 1_000 }
        }
        #expect(offsets.count == 4, "\(offsets)")
        var placed: [String: [Double]] = [:]
        for user in ["ann", "bob"] {
            let audioFile = "\(user)-audio-0.webm", videoFile = "\(user)-video-0.webm"
            let audio = try await Self.audioClaps(run.path(audioFile)).map { $0 + (offsets[audioFile] ?? .nan) }
            let video = try await Self.videoClaps(run.path(videoFile)).map { $0 + (offsets[videoFile] ?? .nan) }
            try #require(audio.count == Self.claps.count && video.count == Self.claps.count, "\(user): audio \(audio), video \(video)")
            for (heard, seen) in zip(audio, video) {
                #expect(abs(heard - seen) <= 0.020, "\(user): the burst at \(heard) s, the white frame at \(seen) s")
            }
            placed[user] = video
        }
        for (annClap, bobClap) in zip(placed["ann"] ?? [], placed["bob"] ?? []) {
            #expect(abs(annClap - bobClap) <= 0.020, "ann's clap at \(annClap) s, bob's at \(bobClap) s")
        }
        // On the location's clock: the real instant plus the network's 30 ms.
        let annPlaced = placed["ann"] ?? []
        #expect(zip(annPlaced, Self.claps).allSatisfy { seen, real in abs(seen - real - 0.030) <= 0.005 }, "\(placed)")
    }
}
