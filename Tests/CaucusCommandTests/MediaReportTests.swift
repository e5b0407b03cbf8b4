// The tests are built with the package's Codecs trait (libopus, libvpx), as scripts/test does.
#if !Codecs
#error("build the tests with the Codecs trait: swift build --traits Codecs && swift test --traits Codecs (docs/testing.md)")
#endif
import CaucusCodecs
import CaucusCore
import Foundation
import Testing

@testable import caucus

/// The maths of `caucus client`'s media report, driven directly: the frame-rate window, the
/// level in dBFS, the rows per user and their printed forms; and the test pattern and tone it
/// publishes, through the real codecs.
@Suite struct MediaReportTests {
    private func ms(_ value: Int) -> Duration { .milliseconds(value) }

    @Test func fifteenFramesASecondReadFifteen() {
        var window = FrameRateWindow()
        for frame in 0..<45 { window.add(at: ms(frame * 1000 / 15)) }
        #expect(abs(window.framesPerSecond(at: ms(44 * 1000 / 15)) - 15) < 0.001)
        // A frame exactly a window old has left it: (now - 1 s, now].
        var edge = FrameRateWindow()
        for time in [0, 500, 1000] { edge.add(at: ms(time)) }
        #expect(edge.framesPerSecond(at: ms(1000)) == 2)
        #expect(edge.framesPerSecond(at: ms(1499)) == 2)
        #expect(edge.framesPerSecond(at: ms(1500)) == 1)
    }

    @Test func beforeAWholeWindowTheRateIsOverTheTimeSinceTheFirstFrame() {
        var window = FrameRateWindow()
        for frame in 0..<5 { window.add(at: ms(2_000 + frame * 100)) }
        // Four intervals of 0.1 s since the first: 10 a second, not 5 (five frames in a second).
        #expect(abs(window.framesPerSecond(at: ms(2_400)) - 10) < 0.001)
        #expect(abs(window.framesPerSecond(at: ms(2_500)) - 8) < 0.001)
        // One frame alone has no rate yet (not infinity).
        var single = FrameRateWindow()
        single.add(at: ms(7_000))
        #expect(single.framesPerSecond(at: ms(7_000)) == 0)
        #expect(single.framesPerSecond(at: ms(7_500)) == 0)
        // Up to a whole window after the first frame, and from then on by the window's count
        // alone (the first has left it): no jump between the two.
        #expect(abs(window.framesPerSecond(at: ms(2_999)) - 4 / 0.999) < 0.001)
        #expect(window.framesPerSecond(at: ms(3_000)) == 4)
        #expect(window.framesPerSecond(at: ms(3_100)) == 3)
    }

    @Test func aStreamThatStopsFallsToZeroAndEmpties() {
        var window = FrameRateWindow(length: .milliseconds(500))
        for frame in 0..<10 { window.add(at: ms(frame * 50)) }
        #expect(!window.isEmpty(at: ms(500)))
        #expect(window.framesPerSecond(at: ms(950)) == 0)
        #expect(window.isEmpty(at: ms(950)))
        #expect(window.decibels(at: ms(950)) == AudioLevel.floor)
    }

    @Test func levelsInDBFS() {
        // Full scale square: 0 dBFS; a full-scale sine -3.01; the tone (12,000 peak) -11.74.
        #expect(abs(AudioLevel.decibels(meanSquare: 32_768 * 32_768)) < 1e-9)
        let fullSine = (0..<48_000).map { Int16(32_767 * sin(2 * .pi * 1_000 * Double($0) / 48_000)) }
        #expect(abs(AudioLevel.decibels(meanSquare: AudioLevel.sumOfSquares(fullSine) / 48_000) + 3.01) < 0.01)
        let tone = (0..<50).flatMap { Tone(hertz: 440).frame($0) }
        #expect(abs(AudioLevel.decibels(meanSquare: AudioLevel.sumOfSquares(tone) / Double(tone.count)) + 11.74) < 0.01)
        #expect(Tone.level == -12)
        // Half the amplitude is 6.02 dB less.
        let half = fullSine.map { $0 / 2 }
        #expect(abs(AudioLevel.decibels(meanSquare: AudioLevel.sumOfSquares(half) / 48_000) + 9.03) < 0.01)
        // Silence, and anything quieter than the floor, reads the floor.
        #expect(AudioLevel.decibels(meanSquare: 0) == AudioLevel.floor)
        #expect(AudioLevel.decibels(meanSquare: 1e-20) == AudioLevel.floor)
    }

    @Test func theWindowsLevelIsOverItsSamplesOnly() {
        var window = FrameRateWindow()
        let loud = [Int16](repeating: 16_384, count: 960)
        let quiet = [Int16](repeating: 1_024, count: 960)
        window.add(at: ms(0), sumOfSquares: AudioLevel.sumOfSquares(loud), samples: loud.count)
        window.add(at: ms(600), sumOfSquares: AudioLevel.sumOfSquares(quiet), samples: quiet.count)
        // Both: the mean of their squares.
        let both = 10 * log10((16_384.0 * 16_384 + 1_024.0 * 1_024) / 2 / (32_768 * 32_768))
        #expect(abs(window.decibels(at: ms(900)) - both) < 1e-9)
        // The loud frame has left the window: -30.1 dBFS (1,024 of 32,768).
        #expect(abs(window.decibels(at: ms(1_100)) - 20 * log10(1_024.0 / 32_768)) < 1e-9)
    }

    @Test func rowsPerUserByNameInUserOrder() {
        var meter = ReceivedMediaMeter()
        let (ann, ben) = (UserID(2), UserID(11))
        for frame in 0..<30 {
            meter.picture(from: ben, kind: .video, width: 320, height: 240, at: ms(frame * 1000 / 15))
            meter.picture(from: ann, kind: .screenShare, width: 1280, height: 720, at: ms(frame * 1000 / 15))
        }
        for frame in 0..<100 { meter.sound(from: ann, samples: [Int16](repeating: 3_277, count: 1_920), at: ms(frame * 20)) }
        meter.undecodable(from: ben)
        let rows = meter.rows(at: ms(1_990)) { $0 == ann ? "Ann" : nil }
        #expect(rows.map(\.user) == ["u2", "u11"])
        #expect(rows.map(\.name) == ["Ann", "u11"])
        #expect(rows[0].audio == .init(fps: 50, dBFS: -20))
        #expect(rows[0].screenShare == .init(fps: 15, width: 1280, height: 720))
        #expect(rows[0].video == nil && rows[1].audio == nil)
        #expect(rows[1].video == .init(fps: 15, width: 320, height: 240))
        #expect(rows[1].undecodable == 1 && rows[0].undecodable == 0)
        // A second later nothing came: nobody is reported.
        #expect(meter.rows(at: ms(3_000)) { _ in nil }.isEmpty)
    }

    @Test func eachReportGivesTheDecodeTimesSinceThePreviousOnTheWallClock() throws {
        // Time zero of the frames' clock is 1,700,000,000.25 s on the wall clock.
        var meter = ReceivedMediaMeter(origin: .milliseconds(1_700_000_000_250))
        let ben = UserID(11)
        for time in [0, 66, 133] { meter.picture(from: ben, kind: .video, width: 96, height: 64, at: ms(time)) }
        meter.picture(from: ben, kind: .screenShare, width: 640, height: 360, at: .microseconds(200_999))
        meter.sound(from: ben, samples: [Int16](repeating: 100, count: 960), at: ms(150))
        let first = meter.report(at: ms(300)) { _ in "Ben" }
        #expect(first.count == 1)
        #expect(first[0].video?.decodedAt == [1_700_000_000_250, 1_700_000_000_316, 1_700_000_000_383])
        // Whole milliseconds, truncated.
        #expect(first[0].screenShare?.decodedAt == [1_700_000_000_450])
        #expect(first[0].video?.fps == meter.rows(at: ms(300)) { _ in "Ben" }[0].video?.fps)
        // Each time once: the next report has only what came since.
        meter.picture(from: ben, kind: .video, width: 96, height: 64, at: ms(1_000))
        let second = meter.report(at: ms(1_100)) { _ in "Ben" }
        #expect(second[0].video?.decodedAt == [1_700_000_001_250])
        #expect(second[0].screenShare?.decodedAt == [])
        // A report that leaves the stream out (nothing in its last second) keeps its times for
        // the next one that names it.
        meter.picture(from: ben, kind: .screenShare, width: 640, height: 360, at: ms(1_150))
        #expect(meter.report(at: ms(2_160)) { _ in "Ben" }.isEmpty)
        meter.picture(from: ben, kind: .screenShare, width: 640, height: 360, at: ms(3_000))
        #expect(meter.report(at: ms(3_100)) { _ in "Ben" }[0].screenShare?.decodedAt == [1_700_000_001_400, 1_700_000_003_250])
        // rows(at:) alone reports none and takes none away.
        meter.picture(from: ben, kind: .video, width: 96, height: 64, at: ms(3_050))
        #expect(meter.rows(at: ms(3_100)) { _ in "Ben" }[0].video?.decodedAt == nil)
        #expect(meter.report(at: ms(3_100)) { _ in "Ben" }[0].video?.decodedAt == [1_700_000_003_300])
        // In the JSON line, under the kind.
        let line = MediaReportLines.json(second)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let video = try #require((object["media"] as? [[String: Any]])?.first?["video"] as? [String: Any])
        #expect(video["decodedAt"] as? [Int] == [1_700_000_001_250])
    }

    @Test func decodeTimesWaitingForAReportAreBounded() {
        var meter = ReceivedMediaMeter()
        let ben = UserID(11)
        let total = ReceivedMediaMeter.undeliveredLimit + 5
        for frame in 0..<total { meter.picture(from: ben, kind: .video, width: 96, height: 64, at: ms(frame)) }
        let times = meter.report(at: ms(total)) { _ in nil }[0].video?.decodedAt ?? []
        // The oldest went first.
        #expect(times.count == ReceivedMediaMeter.undeliveredLimit)
        #expect(times.first == 5 && times.last == Int64(total - 1))
    }

    @Test func theReportsPrintedForms() throws {
        let rows = [
            ReceivedMediaMeter.Row(
                user: "u2", name: "Ann", video: .init(fps: 15, width: 320, height: 240), screenShare: nil,
                audio: .init(fps: 49.5, dBFS: -11.3), undecodable: 0)
        ]
        #expect(MediaReportLines.text(rows) == ["media Ann (u2): video 15 fps 320x240, audio 49.5 fps -11.3 dBFS"])
        let line = MediaReportLines.json(rows)
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let media = try #require(object["media"] as? [[String: Any]])
        #expect(media.count == 1)
        #expect(media[0]["user"] as? String == "u2" && media[0]["name"] as? String == "Ann")
        let video = try #require(media[0]["video"] as? [String: Any])
        #expect(video["fps"] as? Double == 15 && video["width"] as? Int == 320 && video["height"] as? Int == 240)
        #expect((media[0]["audio"] as? [String: Any])?["dBFS"] as? Double == -11.3)
        #expect(media[0]["screenShare"] == nil)
        #expect(MediaReportLines.json([]) == #"{"media":[]}"#)
        #expect(MediaReportLines.text([]).isEmpty)
    }

    /// The pattern through libvpx and back: its size, its mean colour, and a bar that moves.
    @Test func theTestPatternDecodesToItsSizeAndColourAndMoves() throws {
        let pattern = TestPattern(size: PictureSize(width: 320, height: 240))
        let encoder = try VP8Encoder(width: 320, height: 240, kilobitsPerSecond: 600, framesPerSecond: 15)
        let decoder = try VP8Decoder()
        var pictures: [I420Picture] = []
        for index in 0..<10 {
            for frame in try encoder.encode(pattern.picture(index), keyframe: index == 0) { pictures += try decoder.decode(frame.data) }
        }
        let last = try #require(pictures.last)
        #expect(last.width == 320 && last.height == 240)
        let (seen, sent) = (last.meanColour, pattern.meanColour)
        #expect(abs(seen.red - sent.red) < 8 && abs(seen.green - sent.green) < 8 && abs(seen.blue - sent.blue) < 8, "\(seen) for \(sent)")
        // Exactly: the mean of the picture sent is the one the pattern says.
        let exact = pattern.picture(7).meanColour
        #expect(abs(exact.red - sent.red) < 2 && abs(exact.green - sent.green) < 2 && abs(exact.blue - sent.blue) < 2, "\(exact) for \(sent)")
        #expect(pattern.picture(0).luma != pattern.picture(1).luma)
        #expect(pattern.picture(0).luma == pattern.picture(320 / pattern.step).luma, "the bar wraps round")
    }

    /// The tone through libopus and back: its frequency and level survive.
    @Test func theToneDecodesToItsLevel() throws {
        let encoder = try OpusEncoder(channels: 2)
        let decoder = try OpusDecoder(channels: 2)
        var window = FrameRateWindow(length: .seconds(2))
        for index in 0..<100 {
            let samples = try decoder.decode(try encoder.encode(Tone(hertz: 660).frame(index)))
            if index >= 10 { window.add(at: ms(index * 20), sumOfSquares: AudioLevel.sumOfSquares(samples), samples: samples.count) }
        }
        #expect(abs(window.framesPerSecond(at: ms(1_980)) - 50) < 0.001)
        #expect(abs(window.decibels(at: ms(1_980)) + 11.74) < 1.5)
    }
}
