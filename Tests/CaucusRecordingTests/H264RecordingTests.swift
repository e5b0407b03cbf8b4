import CaucusMedia
import CaucusMediaTestSupport
import Foundation
import Testing

@testable import CaucusRecording

/// H.264 from x264, through RTP (``H264Payload``), CaucusMedia's assembler, the recorder and
/// its shell, into Matroska files read by FFmpeg and MKVToolNix.
@Suite(.serialized, .enabled(if: OracleTools.available, Comment(rawValue: OracleTools.missing)))
struct H264RecordingTests {
    /// A track recorded into a folder of its own: RTP in, the shell's notices out.
    final class Recording {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-h264-\(UUID().uuidString)").path
        var recorder = TrackRecorder(ssrc: 7, codec: .h264, trackUID: 9, trackName: "ann", firstSequenceNumber: 65_500)
        let files: TrackRecordingFiles
        var sequencer = RTPPacketSequencer(ssrc: 7, payloadType: 102, firstSequenceNumber: 65_500)
        var notices: [TrackRecordingFiles.Notice] = []
        let clock: LocationClock
        var nextTimestamp: UInt32 = 0

        init() throws {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            files = TrackRecordingFiles(folder: folder, baseName: "ann-video")
            clock = try TrackRecorderTests.clock()
            notices += try files.perform(recorder.start())
        }

        deinit { try? FileManager.default.removeItem(atPath: folder) }

        /// Sends each access unit in packets of at most 1,200 bytes, `rate` a second.
        func send(_ accessUnits: [[UInt8]], rate: Int = 10) throws {
            for unit in accessUnits {
                let payloads = try H264Payload.payloads(for: H264AnnexB.nalUnits(in: unit), maximumPayloadSize: 1_200)
                for packet in sequencer.packets(payloads: payloads, timestamp: nextTimestamp, markerOnLast: true) {
                    notices += try files.perform(recorder.receive(packet, clock: clock))
                }
                nextTimestamp &+= UInt32(90_000 / rate)
            }
        }

        func finish() throws { notices += try files.perform(recorder.finish(clock: clock)) }

        func path(_ name: String) -> String { folder + "/" + name }

        var started: [String: RecordingFileStart] {
            Dictionary(uniqueKeysWithValues: notices.compactMap { if case .fileStarted(let name, let start) = $0 { (name, start) } else { nil } })
        }

        var ended: [String: RecordingFileEnd] {
            Dictionary(uniqueKeysWithValues: notices.compactMap { if case .fileEnded(let name, let end, _) = $0 { (name, end) } else { nil } })
        }
    }

    /// The MD5 of each decoded picture, as FFmpeg's framemd5 gives them.
    static func pictureDigests(_ path: String) async throws -> [String] {
        let result = try await OracleTools.run(OracleTools.ffmpeg, ["-v", "error", "-i", path, "-map", "0:v", "-f", "framemd5", "-"])
        return result.text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map(String.init) }
    }

    @Test func x264ThroughRTPMakesMatroskaFilesThatDecodeToTheSamePictures() async throws {
        let large = try await X264Stream.accessUnits(width: 320, height: 240, seconds: 4)
        let small = try await X264Stream.accessUnits(width: 160, height: 120, seconds: 2)
        #expect(large.count == 40 && small.count == 20)
        let recording = try Recording()
        try recording.send(large + small)
        try recording.finish()

        let expected: [(name: String, units: [[UInt8]], width: Int, height: Int, reason: RecordingFileEnd.Reason)] = [
            ("ann-video-0.mkv", large, 320, 240, .resolutionChanged), ("ann-video-1.mkv", small, 160, 120, .finished),
        ]
        #expect(Set(recording.started.keys) == Set(expected.map(\.name)))
        #expect(recording.recorder.counters.framesWaitingForKeyframe == 0 && recording.recorder.counters.framesWritten == 60)
        for file in expected {
            let path = recording.path(file.name)
            let start = try #require(recording.started[file.name])
            #expect(start.codec.name == "h264" && start.codec.pictureSize?.width == file.width && start.codec.pictureSize?.height == file.height)
            #expect(recording.ended[file.name]?.reason == file.reason)
            let probe = try await OracleTools.probe(path)
            #expect(probe.status == 0 && probe.errors.isEmpty, "\(file.name): \(probe.errors)")
            #expect((probe.format["format_name"] as? String)?.hasPrefix("matroska") == true, "\(probe.format)")
            let stream = try #require(probe.streams.first)
            #expect(probe.streams.count == 1 && stream["codec_name"] as? String == "h264", "\(stream)")
            #expect(stream["width"] as? Int == file.width && stream["height"] as? Int == file.height, "\(stream)")
            let duration = try #require(RecordingOracleTests.double(probe.format["duration"]), "\(probe.format)")
            let seconds = Double(file.units.count) / 10
            #expect(abs(duration - seconds) <= 0.15, "\(file.name): \(duration) s of \(seconds) s")

            let decode = try await OracleTools.run(OracleTools.ffmpeg, ["-v", "error", "-i", path, "-f", "null", "-"])
            #expect(decode.status == 0 && decode.errors.isEmpty, "\(file.name): \(decode.errors)")
            // Every picture decodes to what the encoder's own stream decodes to.
            let original = recording.path("original.h264")
            try Data(file.units.joined()).write(to: URL(fileURLWithPath: original))
            let recorded = try await Self.pictureDigests(path)
            let encoded = try await Self.pictureDigests(original)
            #expect(recorded.count == file.units.count && recorded == encoded, "\(file.name)")
            try FileManager.default.removeItem(atPath: original)

            let identify = try await OracleTools.run(OracleTools.mkvmerge, ["-J", path])
            let json = try #require(try JSONSerialization.jsonObject(with: identify.output) as? [String: Any])
            let properties = (json["tracks"] as? [[String: Any]])?.first?["properties"] as? [String: Any]
            #expect(properties?["codec_id"] as? String == "V_MPEG4/ISO/AVC", "\(identify.text)")
            #expect(properties?["pixel_dimensions"] as? String == "\(file.width)x\(file.height)", "\(identify.text)")
            let info = try await OracleTools.run(OracleTools.mkvinfo, [path])
            #expect(info.status == 0 && info.text.contains("Document type: matroska"), "\(info.text) \(info.errors)")
        }
    }

    /// An IDR without SPS and PPS, before any were seen, cannot be described in the file's
    /// CodecPrivate: no file starts, and a keyframe is asked for. Once seen, a later IDR
    /// without them goes on in the same file.
    @Test func aKeyframeWithoutParameterSetsStartsNothingUntilSomeAreSeen() async throws {
        let units = try await X264Stream.accessUnits(width: 320, height: 240, seconds: 3)
        #expect(units.indices.filter { X264Stream.isKeyframe(units[$0]) } == [0, 10, 20])
        func stripped(_ unit: [UInt8]) -> [UInt8] {
            H264AnnexB.stream(of: H264AnnexB.nalUnits(in: unit).filter { ![7, 8].contains($0[0] & 0x1F) })
        }
        var recorder = TrackRecorder(ssrc: 7, codec: .h264, trackUID: 9)
        let clock = try TrackRecorderTests.clock()
        #expect(recorder.start() == [.requestKeyframe])
        var before: [TrackRecorderAction] = []
        for (index, unit) in units[0..<10].enumerated() {
            let bytes = index == 0 ? stripped(unit) : unit
            before += recorder.receive(TrackRecorder.Frame(timestamp: UInt32(index) * 9_000, isKeyframe: index == 0, bytes: bytes), clock: clock)
        }
        #expect(!recorder.isWriting && TrackRecorderTests.clusters(before).isEmpty && recorder.counters.framesWaitingForKeyframe == 10)
        #expect(before.contains(.requestKeyframe), "asked again while waiting")
        var after: [TrackRecorderAction] = []
        for (index, unit) in units[10...].enumerated() {
            let bytes = index == 10 ? stripped(unit) : unit
            after += recorder.receive(TrackRecorder.Frame(timestamp: UInt32(index + 10) * 9_000, isKeyframe: X264Stream.isKeyframe(unit), bytes: bytes), clock: clock)
        }
        let starts = TrackRecorderTests.starts(after)
        #expect(starts.count == 1 && starts.first?.clockOffset == 6_000_000, "the IDR at 1 s, with its sets")
        #expect(!after.contains { if case .endFile = $0 { true } else { false } }, "the stripped IDR at 2 s used the sets seen before")
        // The block holds the access unit's NAL units, each after its 4-byte length (no start codes).
        // The first cluster (the IDR at 1 s to the frame before the next keyframe): its first block.
        let first = try #require(TrackRecorderTests.clusters(after).first)
        let firstBlock = try #require(RecordingRun.blocks(ofCluster: first, at: 0).first)
        let expectedBlock = H264AnnexB.nalUnits(in: units[10]).flatMap { (unit: [UInt8]) -> [UInt8] in
            let length = UInt32(unit.count)
            let prefix: [UInt8] = [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            return prefix + unit
        }
        #expect(first[..<firstBlock.end].suffix(expectedBlock.count) == expectedBlock[...])
        #expect(recorder.counters.framesWritten == 20)
    }

    /// Other parameter sets at the same size (another profile): the open file's CodecPrivate
    /// no longer describes the stream, so the next file starts.
    @Test func otherParameterSetsOfTheSameSizeStartANewFile() async throws {
        let baseline = try await X264Stream.accessUnits(width: 176, height: 144, options: ["-profile:v", "baseline"])
        let high = try await X264Stream.accessUnits(width: 176, height: 144, options: ["-profile:v", "high"])
        let recording = try Recording()
        try recording.send(baseline + high + baseline)
        try recording.finish()
        #expect(recording.ended["ann-video-0.mkv"]?.reason == .parametersChanged)
        #expect(recording.ended["ann-video-1.mkv"]?.reason == .parametersChanged)
        #expect(recording.ended["ann-video-2.mkv"]?.reason == .finished)
        for index in 0..<3 {
            let decode = try await OracleTools.run(OracleTools.ffmpeg, ["-v", "error", "-i", recording.path("ann-video-\(index).mkv"), "-f", "null", "-"])
            #expect(decode.status == 0 && decode.errors.isEmpty, "\(index): \(decode.errors)")
            let decoded = try await OracleTools.decodedFrames(recording.path("ann-video-\(index).mkv"))
            #expect(decoded.frames == 10, "\(decoded)")
        }
    }
}
