import CaucusAuth
import CaucusRecording
import CaucusTestSupport
import Foundation
import Testing

/// The control API's recordings routes on a real `caucus serve` process, over files the real
/// writer made from real Opus and VP8 in the server's data folder (RecordingLayout).
@Suite(.serialized, .enabled(if: OracleTools.available, Comment(rawValue: OracleTools.missing)))
struct RecordingFilesAPITests {
    static let other = AppCredentials(key: "other-app", secret: "other-secret-0123456789")
    static let session: Int64 = 41
    static let wallClock = 1_795_000_000_000

    /// A data folder with session 41's recordings of the main session (Ann) and room 2 (Bob),
    /// both apps in its apps.json, and a server on it.
    struct Fixture {
        let data: String
        let layout: RecordingLayout
        let runs: [RecordingRun]
        let server: ServerProcess

        static func start() async throws -> Fixture {
            let data = CaucusTestSupport.temporaryFolder()
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            let entries: [[String: String]] = [
                ["key": ServerProcess.app.key, "secret": ServerProcess.app.secret], ["key": other.key, "secret": other.secret],
            ]
            let apps = try JSONSerialization.data(withJSONObject: ["apps": entries])
            _ = FileManager.default.createFile(atPath: data + "/apps.json", contents: apps)
            let layout = RecordingLayout(dataDirectory: data)
            let record = RecordingSessionRecord(app: ServerProcess.app.key, session: session, name: "Class", createdAt: 1_795_000_000_000)
            let ann = SyntheticPublisher(
                name: "u1", audioSSRC: 0xA0, videoSSRC: 0xB0, audioBase: 7, videoBase: 99, wallClockAtZero: 3_900_000_000, audio: 0...3, video: 0...3)
            let bob = SyntheticPublisher(
                name: "u2", audioSSRC: 0xA1, videoSSRC: 0xB1, audioBase: 70, videoBase: 990, wallClockAtZero: 3_900_000_100, audio: 0.5...2.5,
                video: 0.5...2.5)
            let main = try RecordingRun.of([ann], folder: try layout.prepare(record, location: .main), location: "main", wallClock: Int64(wallClock))
            let room = try RecordingRun.of([bob], folder: try layout.prepare(record, location: .room(2)), location: "room-2", wallClock: Int64(wallClock))
            let server = try await ServerProcess(dataDirectory: data)
            return Fixture(data: data, layout: layout, runs: [main, room], server: server)
        }

        func get(_ target: String, range: String? = nil, as app: AppCredentials = ServerProcess.app) async throws -> RawHTTP.Reply {
            var headers = ["Authorization": RawHTTP.basic(app.key, app.secret)]
            if let range { headers["Range"] = range }
            return try await RawHTTP.send(port: server.port, "GET", target, headers: headers)
        }

        func delete(_ target: String, as app: AppCredentials = ServerProcess.app) async throws -> RawHTTP.Reply {
            try await RawHTTP.send(port: server.port, "DELETE", target, headers: ["Authorization": RawHTTP.basic(app.key, app.secret)])
        }

        func stop() {
            server.kill(SIGTERM)
            try? FileManager.default.removeItem(atPath: data)
        }
    }

    @Test func theListNamesEveryFileWithItsUserKindStartDurationAndSize() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.stop() }
        let reply = try await fixture.get("/v1/sessions/41/recordings")
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.json["session"] as? Int == 41)
        let recordings = try #require(reply.json["recordings"] as? [[String: Any]], "\(reply.text)")
        let names = Set(recordings.map { "\($0["location"] ?? "")/\($0["file"] ?? "")" })
        #expect(names == ["main/u1-audio-0.webm", "main/u1-video-0.webm", "room-2/u2-audio-0.webm", "room-2/u2-video-0.webm"])
        for recording in recordings {
            let location = recording["location"] as? String ?? "?"
            let file = recording["file"] as? String ?? "?"
            let path = fixture.layout.root + "/41/\(location)/\(file)"
            let size = try #require((try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue)
            #expect(recording["size"] as? Int == size, "\(file)")
            #expect(recording["user"] as? String == (location == "main" ? "u1" : "u2"))
            #expect(recording["kind"] as? String == (file.contains("audio") ? "audio" : "video"))
            #expect(recording["codec"] as? String == (file.contains("audio") ? "opus" : "vp8"))
            #expect(recording["ended"] as? Bool == true)
            #expect(recording["url"] as? String == "/v1/sessions/41/recordings/\(location)/\(file)")
            // Where the timeline's fileStarted put it, and as long as ffprobe finds it.
            let run = fixture.runs[location == "main" ? 0 : 1]
            let started = try run.timelineEvents().first { $0["event"] as? String == "fileStarted" && $0["file"] as? String == file }
            let startedAt = started?["t"] as? Int
            #expect(startedAt != nil && recording["start"] as? Int == startedAt, "\(file)")
            let probe = try await OracleTools.probe(path)
            let probed = try #require(RecordingOracleTests.double(probe.format["duration"]))
            let duration = try #require(recording["duration"] as? Int, "\(recording)")
            #expect(abs(Double(duration) / 1000 - probed) < 0.1, "\(file): listed \(duration) ms, ffprobe \(probed) s")
            #expect(duration > (location == "main" ? 2_500 : 1_500), "\(file): \(duration) ms")
            // The location clock's 0 is the timeline's wallClock (Unix ms).
            #expect(recording["startedAt"] as? Int == Self.wallClock + (recording["start"] as? Int ?? -1), "\(recording)")
        }
        let timelines = try #require(reply.json["timelines"] as? [[String: Any]])
        #expect(Set(timelines.compactMap { $0["location"] as? String }) == ["main", "room-2"])
    }

    /// Pages of one file each, following `next` (sent percent-encoded and plain), list what one
    /// page lists, in its order, each timeline once; a bad `limit` or `after` is refused.
    @Test func pagesFollowingNextListWhatOnePageLists() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.stop() }
        let whole = try await fixture.get("/v1/sessions/41/recordings")
        let all = try #require(whole.json["recordings"] as? [[String: Any]]).map { "\($0["location"] ?? "")/\($0["file"] ?? "")" }
        #expect(all.count == 4 && whole.json["next"] == nil, "\(whole.text)")
        for encoded in [true, false] {
            var listed: [String] = []
            var timelines: [String] = []
            var after: String?
            var pages = 0
            repeat {
                let query = after.map { "&after=" + (encoded ? $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! : $0) } ?? ""
                let page = try await fixture.get("/v1/sessions/41/recordings?limit=1" + query)
                #expect(page.status == 200, "\(page.text)")
                listed += (page.json["recordings"] as? [[String: Any]] ?? []).map { "\($0["location"] ?? "")/\($0["file"] ?? "")" }
                timelines += (page.json["timelines"] as? [[String: Any]] ?? []).compactMap { $0["location"] as? String }
                after = page.json["next"] as? String
                pages += 1
            } while after != nil && pages < 10
            #expect(listed == all, "encoded: \(encoded)")
            #expect(timelines == ["main", "room-2"], "encoded: \(encoded)")
            #expect(pages == 4)
        }
        for query in ["limit=0", "limit=1001", "limit=abc", "limit=", "after=main", "after=main/0/..%2Fx.webm", "limit=1&limit=2", "page=2"] {
            let refused = try await fixture.get("/v1/sessions/41/recordings?" + query)
            #expect(refused.status == 400 && refused.text.contains("1004"), "\(query): \(refused.status) \(refused.text)")
        }
    }

    @Test func filesAreServedWholeAndByRangeByteForByte() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.stop() }
        for (file, type) in [("u1-video-0.webm", "video/webm"), ("u1-audio-0.webm", "audio/webm"), ("timeline.jsonl", "application/jsonl")] {
            let disk = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture.layout.root + "/41/main/" + file)))
            let size = disk.count
            let target = "/v1/sessions/41/recordings/main/" + file
            let whole = try await fixture.get(target)
            #expect(whole.status == 200, "\(file): \(whole.text)")
            #expect(whole.body == disk, "\(file): \(whole.body.count) bytes served of \(size)")
            #expect(whole.headers["content-type"] == type)
            #expect(whole.headers["accept-ranges"] == "bytes")
            #expect(whole.headers["content-length"] == String(size))
            let ranges: [(String, ClosedRange<Int>)] = [
                ("bytes=0-99", 0...99), ("bytes=100-", 100...(size - 1)), ("bytes=-50", (size - 50)...(size - 1)), ("bytes=7-7", 7...7),
                ("bytes=10-999999999", 10...(size - 1)), ("bytes=\(size - 1)-", (size - 1)...(size - 1)),
            ]
            for (header, expected) in ranges {
                let part = try await fixture.get(target, range: header)
                #expect(part.status == 206, "\(file) \(header): \(part.status)")
                #expect(part.headers["content-range"] == "bytes \(expected.lowerBound)-\(expected.upperBound)/\(size)", "\(file) \(header)")
                #expect(part.body == Array(disk[expected]), "\(file) \(header): \(part.body.count) bytes")
                #expect(part.headers["content-type"] == type)
            }
            for header in ["bytes=\(size)-", "bytes=\(size + 100)-\(size + 200)", "bytes=-0"] {
                let refused = try await fixture.get(target, range: header)
                #expect(refused.status == 416, "\(file) \(header): \(refused.status)")
                #expect(refused.headers["content-range"] == "bytes */\(size)", "\(file) \(header)")
                #expect(refused.errorCode == 1004, "\(refused.text)")
            }
            // Several ranges, or another unit: the whole file, as a server that ignores Range.
            for header in ["bytes=0-1,5-6", "items=0-1", "bytes=9-3"] {
                let ignored = try await fixture.get(target, range: header)
                #expect(ignored.status == 200 && ignored.body == disk, "\(file) \(header): \(ignored.status)")
            }
        }
    }

    /// The server's resident memory (kB), from /proc.
    static func residentKilobytes(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { throw TestFailure("no VmRSS in /proc/\(pid)/status") }
        return kilobytes
    }

    @Test func aLargeFileIsStreamedNotLoaded() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.stop() }
        // 1 GiB, sparse: no disk used, read as zeros.
        let path = fixture.layout.root + "/41/main/u1-video-1.webm"
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 1 << 30)
        try handle.close()
        let pid = fixture.server.process.processIdentifier
        _ = try await fixture.get("/v1/sessions/41/recordings/main/u1-audio-0.webm")
        let before = try Self.residentKilobytes(pid)
        // The first bytes have come: a server that loaded the file whole would hold it all now.
        let reading = try await RawHTTP.startReading(
            port: fixture.server.port, "/v1/sessions/41/recordings/main/u1-video-1.webm",
            headers: ["Authorization": RawHTTP.basic(ServerProcess.app.key, ServerProcess.app.secret)], count: 1 << 20)
        defer { close(reading.socket) }
        #expect(String(decoding: reading.bytes.prefix(12), as: UTF8.self) == "HTTP/1.1 200")
        #expect(String(decoding: reading.bytes.prefix(400), as: UTF8.self).lowercased().contains("content-length: \(1 << 30)"))
        let during = try Self.residentKilobytes(pid)
        #expect(during - before < 256 * 1024, "the server's memory grew from \(before) kB to \(during) kB serving a 1 GiB file")
    }

    @Test func noPathLeadsOutsideTheRecordingsFolder() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.stop() }
        let secret = "SECRET-\(UUID().uuidString)"
        let outside = fixture.data + "/outside"
        try FileManager.default.createDirectory(atPath: outside + "/main", withIntermediateDirectories: true)
        for name in ["secret.webm", "timeline.jsonl", "main/timeline.jsonl", "main/secret.webm"] {
            _ = FileManager.default.createFile(atPath: outside + "/" + name, contents: Data(secret.utf8))
        }
        let record = #"{"app":"process-app","session":43,"name":"x","createdAt":0}"#
        _ = FileManager.default.createFile(atPath: outside + "/session.json", contents: Data(record.utf8))
        _ = FileManager.default.createFile(atPath: fixture.data + "/secret.webm", contents: Data(secret.utf8))
        let main = fixture.layout.root + "/41/main"
        // Links planted inside: a file, a location and a whole session pointing outside.
        try FileManager.default.createSymbolicLink(atPath: main + "/link.webm", withDestinationPath: outside + "/secret.webm")
        try FileManager.default.createSymbolicLink(atPath: fixture.layout.root + "/41/room-3", withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(atPath: fixture.layout.root + "/43", withDestinationPath: outside)
        let targets = [
            "/v1/sessions/41/recordings/main/../../../secret.webm",
            "/v1/sessions/41/recordings/main/..%2F..%2F..%2Fsecret.webm",
            "/v1/sessions/41/recordings/..%2F..%2F..%2Foutside/secret.webm",
            "/v1/sessions/41/recordings/%2E%2E/secret.webm",
            "/v1/sessions/41/recordings/main/%2E%2E%2F%2E%2E%2F%2E%2E%2Fsecret.webm",
            "/v1/sessions/41/recordings/main/%2Fwork%2Fsecret.webm",
            "/v1/sessions/41/recordings/main//etc/passwd",
            "/v1/sessions/41/recordings/main/link.webm",
            "/v1/sessions/41/recordings/room-3/timeline.jsonl",
            "/v1/sessions/41/recordings/room-3/secret.webm",
            "/v1/sessions/43/recordings/main/timeline.jsonl",
            "/v1/sessions/43/recordings/main/secret.webm",
            "/v1/sessions/43/recordings",
            "/v1/sessions/41/recordings/main/.secret.webm",
            "/v1/sessions/41/recordings/main/secret%00.webm",
            "/v1/sessions/41/recordings/main/u1-audio-0.webm%00",
            "/v1/sessions/41/recordings/main/..",
            "/v1/sessions/41/recordings/room-02/timeline.jsonl",
            "/v1/sessions/41/recordings/Main/timeline.jsonl",
            "/v1/sessions/41/recordings/main/session.json",
            "/v1/sessions/41%2F..%2F43/recordings",
            "/v1/sessions/-41/recordings",
            "/v1/sessions/0041x/recordings",
        ]
        for target in targets {
            let reply = try await fixture.get(target)
            #expect([400, 404].contains(reply.status), "\(target): \(reply.status) \(reply.text)")
            #expect(!reply.text.contains(secret), "\(target) served the secret")
            let list = reply.json["recordings"] as? [Any]
            #expect(list == nil, "\(target) listed \(reply.text)")
        }
        for target in [
            "/v1/sessions/43/recordings", "/v1/sessions/43/recordings/main", "/v1/sessions/41/recordings/room-3",
            "/v1/sessions/41/recordings/..%2F..%2Foutside", "/v1/sessions/41/recordings/%2E%2E",
        ] {
            let reply = try await fixture.delete(target)
            #expect([400, 404].contains(reply.status), "DELETE \(target): \(reply.status) \(reply.text)")
        }
        // Deleting all of session 41 removes its real folders, and the links, never what they point to.
        let all = try await fixture.delete("/v1/sessions/41/recordings")
        #expect(all.status == 200, "\(all.text)")
        #expect(Set(all.json["deleted"] as? [String] ?? []) == ["main", "room-2"])
        for name in ["secret.webm", "timeline.jsonl", "main/timeline.jsonl", "main/secret.webm", "session.json"] {
            #expect(FileManager.default.fileExists(atPath: outside + "/" + name), "\(name) outside is still there")
        }
        #expect(FileManager.default.fileExists(atPath: fixture.data + "/secret.webm"))
        #expect(FileManager.default.fileExists(atPath: fixture.data + "/caucus.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: main))
    }

    @Test func anotherAppReachesNoneOfTheSessionsRecordings() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.stop() }
        for target in ["/v1/sessions/41/recordings", "/v1/sessions/41/recordings/main/u1-audio-0.webm", "/v1/sessions/41/recordings/main/timeline.jsonl"] {
            let reply = try await fixture.get(target, as: Self.other)
            #expect(reply.status == 404 && reply.errorCode == 1012, "\(target): \(reply.status) \(reply.text)")
        }
        for target in ["/v1/sessions/41/recordings", "/v1/sessions/41/recordings/main"] {
            let reply = try await fixture.delete(target, as: Self.other)
            #expect(reply.status == 404 && reply.errorCode == 1012, "DELETE \(target): \(reply.status)")
        }
        let wrongSecret = AppCredentials(key: ServerProcess.app.key, secret: "not-the-secret")
        #expect(try await fixture.get("/v1/sessions/41/recordings", as: wrongSecret).status == 401)
        #expect(try await fixture.delete("/v1/sessions/41/recordings", as: wrongSecret).status == 401)
        #expect(FileManager.default.fileExists(atPath: fixture.layout.root + "/41/main/u1-audio-0.webm"))
        #expect(FileManager.default.fileExists(atPath: fixture.layout.root + "/41/room-2/u2-video-0.webm"))
        // The owner still sees everything.
        let list = try await fixture.get("/v1/sessions/41/recordings")
        #expect((list.json["recordings"] as? [Any])?.count == 4)
    }

    @Test func oneLocationIsDeletedThenTheRest() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.stop() }
        let room = try await fixture.delete("/v1/sessions/41/recordings/room-2")
        #expect(room.status == 200 && room.json["deleted"] as? [String] == ["room-2"], "\(room.text)")
        #expect(!FileManager.default.fileExists(atPath: fixture.layout.root + "/41/room-2"))
        let list = try await fixture.get("/v1/sessions/41/recordings")
        #expect(Set((list.json["recordings"] as? [[String: Any]] ?? []).compactMap { $0["location"] as? String }) == ["main"])
        #expect(try await fixture.get("/v1/sessions/41/recordings/room-2/u2-audio-0.webm").status == 404)
        #expect(try await fixture.delete("/v1/sessions/41/recordings/room-2").status == 404)
        let rest = try await fixture.delete("/v1/sessions/41/recordings")
        #expect(rest.status == 200 && rest.json["deleted"] as? [String] == ["main"], "\(rest.text)")
        let empty = try await fixture.get("/v1/sessions/41/recordings")
        #expect(empty.status == 200 && (empty.json["recordings"] as? [Any])?.isEmpty == true, "\(empty.text)")
    }
}
