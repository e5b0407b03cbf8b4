import CaucusTestSupport
import Foundation
import Testing

@testable import CaucusRecording

/// Where recordings lie and what reads them back: names, the session record, the timeline
/// reader, the header's duration.
struct RecordingLayoutTests {
    @Test func locationsAreMainOrARoomsIDAndNothingElse() {
        #expect(RecordingLocation(name: "main") == .main)
        #expect(RecordingLocation(name: "room-7") == .room(7))
        #expect(RecordingLocation(name: "room-7")?.name == "room-7")
        for bad in ["", "Main", "room-", "room-0", "room-07", "room--7", "room-7 ", "room-x", "..", "main/..", "room-99999999999999999999", "/main"] {
            #expect(RecordingLocation(name: bad) == nil, "\(bad)")
        }
        #expect([RecordingLocation.room(10), .main, .room(2)].sorted() == [.main, .room(2), .room(10)])
    }

    @Test func fileNamesAreTheTimelineOrPlainWebMNames() {
        for good in ["timeline.jsonl", "u1-audio-0.webm", "u12-video-3.webm", "a_b-screen-0.webm", "u3-video-0.mkv"] {
            #expect(RecordingLayout.isFileName(good), "\(good)")
        }
        for bad in [
            "", ".webm", "..", "../x.webm", "a/b.webm", ".hidden.webm", "x..webm", "a.b.webm", "x.webm\u{0}", "x\u{0}.webm", "session.json",
            "timeline.jsonl.webm.txt", "/etc/passwd", "x.WEBM", "é.webm", String(repeating: "a", count: 300) + ".webm", "x y.webm",
            ".mkv", "../x.mkv", "x.MKV", "x.mkv.webm", "x.webm.mkv", "x.mp4", "x.mkv/",
        ] {
            #expect(!RecordingLayout.isFileName(bad), "\(bad)")
        }
        #expect(RecordingLayout.baseName(user: "u7", kind: .video) == "u7-video")
        #expect(RecordingLayout.baseName(user: "../é x", kind: .audio) == "_____x-audio")
        for fileExtension in ["webm", "mkv"] {
            let name = TrackRecordingFiles.fileName(baseName: RecordingLayout.baseName(user: "../x", kind: .audio), index: 2, fileExtension: fileExtension)
            #expect(RecordingLayout.isFileName(name), "\(name)")
        }
        #expect(RecordingLayout.kind(ofFileName: "u1-video-3.mkv") == .video)
        // WebM and Matroska files of one track share one sequence of indexes.
        func parts(_ name: String) -> (String, Int)? {
            RecordingLayout.baseNameAndIndex(ofFileName: name).map { (String($0.baseName), $0.index) }
        }
        #expect(parts("u1-video-3.mkv")! == ("u1-video", 3))
        #expect(parts("u1-video-12.webm")! == ("u1-video", 12))
        #expect(parts("_-x-audio-0.webm")! == ("_-x-audio", 0), "a base name's own dashes stay in it")
        #expect(parts("u1-video-999999999.webm")! == ("u1-video", 999_999_999))
        for other in [
            "u1-video-3.mp4", "u1-video-.mkv", "u1-video-x.mkv", "u1-video-3", "-3.webm", "u1-video-٣.mkv", "timeline.jsonl",
            "u1-video-1000000000.webm", "u1-video-9223372036854775807.webm",
        ] {
            #expect(parts(other) == nil, "\(other)")
        }
        #expect(RecordingLayout.kind(ofFileName: "u1-audio-0.webm") == .audio)
        #expect(RecordingLayout.kind(ofFileName: "u1-screen-12.webm") == .screen)
        #expect(RecordingLayout.kind(ofFileName: "audio-video-0.webm") == .video)
        #expect(RecordingLayout.kind(ofFileName: "u1-audio.webm") == nil)
    }

    @Test func theSessionRecordSaysWhoseRecordingsTheyAreAndIsNeverTakenOver() throws {
        let data = CaucusTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let layout = RecordingLayout(dataDirectory: data)
        #expect(try layout.record(of: 5) == nil)
        let record = RecordingSessionRecord(app: "app-a", session: 5, name: "Class", createdAt: 1)
        let main = try layout.prepare(record, location: .main)
        #expect(main == data + "/recordings/5/main")
        #expect(try layout.prepare(record, location: .room(3)) == data + "/recordings/5/room-3")
        #expect(try layout.record(of: 5) == record)
        #expect(layout.locations(of: 5) == [.main, .room(3)])
        // Another app's session of the same id (a store that was reset) does not write here.
        #expect(throws: RecordingLayoutError.self) {
            try layout.prepare(RecordingSessionRecord(app: "app-b", session: 5, name: "Class", createdAt: 2), location: .room(4))
        }
        #expect(!FileManager.default.fileExists(atPath: data + "/recordings/5/room-4"))
        #expect(try layout.record(of: 5)?.app == "app-a")
        // A garbled record is an error, not "nobody's".
        _ = FileManager.default.createFile(atPath: data + "/recordings/5/session.json", contents: Data("{".utf8))
        #expect(throws: RecordingLayoutError.self) { try layout.record(of: 5) }
    }

    @Test func theTimelineReaderIsStrictOrLenientAndSkipsACutLastLine() throws {
        let good = #"{"t":0,"event":"recordingStarted","version":1,"location":"main","wallClock":5}"#
        let file = #"{"t":12,"event":"fileStarted","user":"u1","kind":"audio","file":"u1-audio-0.webm","codec":"opus","width":0,"height":0}"#
        let bytes = Array((good + "\n" + file + "\n" + #"{"t":13,"ev"#).utf8)
        let lines = try TimelineReader.lines(bytes, strict: true)
        #expect(lines.map(\.event) == ["recordingStarted", "fileStarted"])
        #expect(lines[1].t == 12 && lines[1].file == "u1-audio-0.webm" && lines[0].wallClock == 5)
        let spoilt = Array((good + "\nnot json\n" + file + "\n").utf8)
        #expect(throws: TimelineReadError(line: 2, reason: "is not a timeline event (JSON with \"t\" and \"event\")")) {
            try TimelineReader.lines(spoilt, strict: true)
        }
        #expect(try TimelineReader.lines(spoilt, strict: false).count == 2)
        let noFile = Array((good + "\n" + #"{"t":1,"event":"fileStarted","user":"u1","kind":"sound","file":"x.webm"}"# + "\n").utf8)
        #expect(throws: TimelineReadError.self) { try TimelineReader.lines(noFile, strict: true) }
    }

    @Test func theHeadersDurationIsReadAndGarbageIsNil() throws {
        let run = try RecordingRun.of([
            SyntheticPublisher(name: "u1", audioSSRC: 1, videoSSRC: 2, audioBase: 0, videoBase: 0, wallClockAtZero: 3_900_000_000, audio: 0...2, video: nil)
        ])
        let path = run.path("u1-audio-0.webm")
        let duration = try #require(WebMDurationReader.durationMilliseconds(ofFileAt: path))
        let ended = try run.timelineEvents().first { $0["event"] as? String == "fileEnded" }?["duration"] as? Int
        #expect(Int(duration) == ended, "header \(duration) ms, timeline \(String(describing: ended))")
        #expect(WebMDurationReader.durationMilliseconds(ofFileAt: run.path("timeline.jsonl")) == nil)
        #expect(WebMDurationReader.durationMilliseconds(in: []) == nil)
        #expect(WebMDurationReader.durationMilliseconds(in: [0x1A, 0x45, 0xDF, 0xA3, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) == nil)
        let header = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)).prefix(200))
        for cut in 0..<header.count { _ = WebMDurationReader.durationMilliseconds(in: Array(header.prefix(cut))) }
        // The listing of the folder agrees.
        let location = try RecordedLocation.read(folder: run.folder.path, strict: true)
        #expect(location.files.map(\.name) == ["u1-audio-0.webm"] && location.files.first?.durationMilliseconds == duration)
    }

    /// A damaged header (a disk's error, another program's file) states a duration no 64-bit
    /// count of milliseconds holds, or none at all: no duration, and no trap of a listing.
    @Test func aDurationBeyondSixtyFourBitsIsNoDuration() throws {
        let track = WebMTrack(number: 1, uid: 1, codec: .opus())
        let header = try WebMMuxer(tracks: [track]).header()
        for (stated, expected) in [(1e300, nil), (Double.infinity, nil), (-Double.infinity, nil), (Double.nan, nil), (-5, nil), (9.3e18, nil), (1_234, 1_234)] as [(Double, Int64?)] {
            var bytes = header.bytes
            bytes.replaceSubrange(header.durationOffset..<(header.durationOffset + 8), with: EBMLElement.floatBytes(stated))
            #expect(WebMDurationReader.durationMilliseconds(in: bytes) == expected, "a stated \(stated)")
        }
    }
}
