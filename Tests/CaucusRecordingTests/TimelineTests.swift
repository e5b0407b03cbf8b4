import Foundation
import Testing

@testable import CaucusRecording

/// The timeline's JSON Lines, byte for byte, and its file.
@Suite struct TimelineTests {
    static func text(_ event: TimelineEvent) -> String {
        String(decoding: TimelineEncoder.line(event), as: UTF8.self)
    }

    @Test func eachEventIsOneFlatObjectOnOneLine() {
        #expect(Self.text(TimelineEvent(time: 0, .recordingStarted(location: "room-2", wallClock: 1_795_000_000_000)))
            == #"{"t":0,"event":"recordingStarted","version":1,"location":"room-2","wallClock":1795000000000}"# + "\n")
        #expect(Self.text(TimelineEvent(time: 1_250, .joined(user: "u1", name: "Ann")))
            == #"{"t":1250,"event":"joined","user":"u1","name":"Ann"}"# + "\n")
        #expect(Self.text(TimelineEvent(time: 9, .movedIn(user: "u1", from: "main"))) == #"{"t":9,"event":"movedIn","user":"u1","from":"main"}"# + "\n")
        #expect(Self.text(TimelineEvent(time: 9, .movedOut(user: "u1", to: "r3"))) == #"{"t":9,"event":"movedOut","user":"u1","to":"r3"}"# + "\n")
        #expect(Self.text(TimelineEvent(time: 9, .muted(user: "u1", kind: .audio))) == #"{"t":9,"event":"muted","user":"u1","kind":"audio"}"# + "\n")
        #expect(Self.text(TimelineEvent(time: 9, .unmuted(user: "u1", kind: .video))) == #"{"t":9,"event":"unmuted","user":"u1","kind":"video"}"# + "\n")
        #expect(Self.text(TimelineEvent(time: 9, .spoke(user: "u1"))) == #"{"t":9,"event":"spoke","user":"u1"}"# + "\n")
        #expect(Self.text(TimelineEvent(time: 9, .shareStarted(user: "u1"))) == #"{"t":9,"event":"shareStarted","user":"u1"}"# + "\n")
        #expect(Self.text(TimelineEvent(time: 9, .shareStopped(user: "u1"))) == #"{"t":9,"event":"shareStopped","user":"u1"}"# + "\n")
        #expect(Self.text(TimelineEvent(time: 9, .left(user: "u1"))) == #"{"t":9,"event":"left","user":"u1"}"# + "\n")
        #expect(Self.text(TimelineEvent(time: 9, .recordingStopped(reason: "diskFull"))) == #"{"t":9,"event":"recordingStopped","reason":"diskFull"}"# + "\n")
        #expect(
            Self.text(TimelineEvent(time: 4_321, .fileStarted(user: "u1", kind: .video, file: "u1-video-0.webm", codec: "vp8", width: 640, height: 480)))
                == #"{"t":4321,"event":"fileStarted","user":"u1","kind":"video","file":"u1-video-0.webm","codec":"vp8","width":640,"height":480}"# + "\n")
        #expect(
            Self.text(TimelineEvent(time: 9_000, .fileEnded(user: "u1", kind: .audio, file: "u1-audio-0.webm", durationMilliseconds: 4_679, reason: "finished")))
                == #"{"t":9000,"event":"fileEnded","user":"u1","kind":"audio","file":"u1-audio-0.webm","duration":4679,"reason":"finished"}"# + "\n")
    }

    @Test func noNameCanBreakALine() throws {
        let line = TimelineEncoder.line(TimelineEvent(time: 1, .joined(user: "u\n2", name: "A\"\r\u{2028}\u{0}")))
        #expect(line.filter { $0 == UInt8(ascii: "\n") }.count == 1 && line.last == UInt8(ascii: "\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        #expect(object["user"] as? String == "u\n2" && object["name"] as? String == "A\"\r\u{2028}\u{0}")
    }

    @Test func theFileStartsWithRecordingStartedAndAppendsLines() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-timeline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("timeline.jsonl").path
        let timeline = try TimelineFile(creatingAt: path, location: "main", wallClock: 7)
        try timeline.append(TimelineEvent(time: 5, .spoke(user: "u1")))
        // Written at once: readable before the file is closed (what a crash leaves).
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines == [#"{"t":0,"event":"recordingStarted","version":1,"location":"main","wallClock":7}"#, #"{"t":5,"event":"spoke","user":"u1"}"#])
        timeline.close()
        #expect(throws: RecordingFileError(code: .closed, operation: .write, path: path)) { try timeline.append(TimelineEvent(time: 6, .left(user: "u1"))) }
        // Never over an existing file: refused, and the file is as it was.
        let again = #expect(throws: RecordingFileError.self) { try TimelineFile(creatingAt: path, location: "main", wallClock: 8) }
        #expect(again?.code == .cannotCreate && again?.systemError == EEXIST)
        #expect(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count == 2)
    }

    /// A timeline is gone on with from its first line alone (its `wallClock` stays the clock's
    /// 0), however long the rest; a file without a whole first line of ours is not gone on with.
    @Test func aTimelineIsGoneOnWithFromItsFirstLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("caucus-timeline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("timeline.jsonl").path
        let timeline = try TimelineFile(creatingAt: path, location: "main", wallClock: 7)
        // Past the first read (4 KiB) and the first line's limit: only the first line is read.
        for index in 0..<3_000 { try timeline.append(TimelineEvent(time: Int64(index), .spoke(user: "u\(index)"))) }
        timeline.close()
        let (again, wallClock) = try #require(try TimelineFile.continuing(at: path))
        #expect(wallClock == 7)
        try again.append(TimelineEvent(time: 3_000, .left(user: "u1")))
        again.close()
        let lines = try TimelineReader.lines(Data(contentsOf: URL(fileURLWithPath: path)), strict: true)
        #expect(lines.count == 3_002 && lines.last?.event == "left")

        let other = folder.appendingPathComponent("other.jsonl").path
        for refused in [
            #"{"t":0,"event":"spoke","user":"u1"}"# + "\n",  // not recordingStarted
            #"{"t":0,"event":"recordingStarted","version":1,"location":"main","wallClock":7}"#,  // cut off: no newline
            #"{"t":0,"event":"recordingStarted","version":1,"location":""# + String(repeating: "x", count: TimelineFile.firstLineLimit)
                + #"","wallClock":7}"# + "\n",  // too long to be ours
            "",
        ] {
            try? FileManager.default.removeItem(atPath: other)
            #expect(FileManager.default.createFile(atPath: other, contents: Data(refused.utf8)))
            #expect(try TimelineFile.continuing(at: other) == nil, "\(refused.prefix(80))")
        }
        #expect(try TimelineFile.continuing(at: folder.appendingPathComponent("missing.jsonl").path) == nil)
    }

    /// /dev/full fails every write with ENOSPC: a full disk is its own code.
    @Test func aFullDiskSaysSo() throws {
        let descriptor = open("/dev/full", O_WRONLY)
        try #require(descriptor >= 0)
        let header = try WebMMuxer(tracks: [WebMTrack(number: 1, uid: 1, codec: .opus())]).header()
        let error = #expect(throws: RecordingFileError.self) {
            try WebMFile(file: AppendOnlyFile(descriptor: descriptor, path: "/dev/full"), header: header, synchronize: false)
        }
        #expect(error?.code == .diskFull && error?.systemError == ENOSPC)
        #expect(error?.description.contains("No space left on device") == true, "\(String(describing: error))")
    }
}
