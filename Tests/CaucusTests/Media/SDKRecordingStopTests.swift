import Caucus
import CaucusRecording
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Recording that the server stops on its own: the app's quota used up, the disk full. The
/// files end playable where their last whole cluster is, the timeline says why, and the
/// session goes on.
@Suite(.serialized) struct SDKRecordingStopTests {
    @Test func theAppsQuotaStopsRecordingAndTheSessionGoesOn() async throws {
        let server = try await TestServer.start { $0.recordingQuota = 100_000 }
        let host = try await stopsOnItsOwn(server, reason: .quotaExceeded)
        // Still over the quota: a new start is stopped at once, saying why.
        try await #require(host.session.subsessionManager).startRecording([.main])
        let again = try await host.log.next("the new start stopped") {
            if case .recordingStopped(let locations, let why) = $0 { (locations, why) } else { nil }
        }
        #expect(again.0 == [.main] && again.1 == .quotaExceeded)
        try await host.session.leave()
        await server.stop()
    }

    /// A 160 KiB file system for `<data>/recordings` (a symbolic link may put it on another
    /// disk, docs/recording.md). Mounting needs root (and a system that lets it mount), which
    /// CI has.
    @Test(.enabled(if: Self.canMount, "mounting a small tmpfs needs root"))
    func aFullDiskStopsRecordingAndLeavesPlayableFiles() async throws {
        let server = try await TestServer.start()
        let mount = NSTemporaryDirectory() + "caucus-full-disk-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        try run("/bin/mount", ["-t", "tmpfs", "-o", "size=160k", "tmpfs", mount])
        defer { try? run("/bin/umount", ["-l", mount]) }
        try FileManager.default.createSymbolicLink(atPath: server.running.dataDirectory + "/recordings", withDestinationPath: mount)
        let host = try await stopsOnItsOwn(server, reason: .diskFull)
        try await host.session.leave()
        await server.stop()
    }

    /// Ann publishes in the recorded main session until the server stops recording; then her
    /// files probe as long as the time recorded, the timeline ends with `reason`, and the
    /// session still works.
    private func stopsOnItsOwn(_ server: TestServer, reason: RecordingStopReason) async throws -> Client {
        let host = try await server.client("Teacher", role: .host)
        let ann = try await server.client("Ann")
        try await ann.session.audioHelper.start()
        try await ann.session.videoHelper.start()
        let publisher = TestPublisher.start(ann.session)
        defer { publisher.cancel() }
        let manager = try #require(host.session.subsessionManager)
        try await manager.startRecording([.main])
        let dataDirectory = server.running.dataDirectory
        @Sendable func timelinePath() -> String? {
            RecordedSessionFolder.location("main", in: dataDirectory).map { $0 + "/timeline.jsonl" }
        }
        try await eventually(seconds: 60, "recording stopped on its own") {
            guard let path = timelinePath() else { return false }
            return (try? String(contentsOfFile: path, encoding: .utf8))?.contains("recordingStopped") == true
        }
        let timeline = try #require(timelinePath())
        let folder = (timeline as NSString).deletingLastPathComponent
        let lines = try TimelineReader.lines(try Data(contentsOf: URL(fileURLWithPath: timeline)), strict: true)
        #expect(lines.last?.event == "recordingStopped", "\(lines.last.map { "\($0)" } ?? "no line")")
        let stopped = try String(contentsOfFile: timeline, encoding: .utf8)
        #expect(stopped.contains(#""reason":"\#(reason.rawValue)""#), "\(stopped.suffix(200))")
        // Everyone is told why, and nothing is recorded any more.
        for client in [host, ann] {
            let told = try await client.log.next("told why recording stopped") {
                if case .recordingStopped(let locations, let why) = $0 { (locations, why) } else { nil }
            }
            #expect(told.0 == [.main] && told.1 == reason)
            #expect(try client.snapshot.recordedLocations.isEmpty)
        }
        let recorded = try RecordedLocation.read(folder: folder, strict: false)
        #expect(!recorded.files.isEmpty)
        for file in recorded.files {
            let duration = try #require(file.durationMilliseconds, "\(file.name) states no duration")
            #expect(duration > 0, "\(file.name)")
            if FFprobe.isInstalled {
                let seconds = try FFprobe.duration(of: folder + "/" + file.name)
                #expect(abs(seconds * 1_000 - Double(duration)) < 2_000, "\(file.name): ffprobe \(seconds) s, header \(duration) ms")
            }
        }
        // The session goes on: a chat still gets through.
        try await host.session.chat.send("still here")
        _ = try await ann.log.next("the host's chat after the stop") { if case .chatMessage(let message, _) = $0, message.text == "still here" { true } else { nil } }
        try await ann.session.leave()
        return host
    }

    /// Whether this process may mount a tmpfs: tried once on a scratch folder.
    static let canMount: Bool = {
        guard getuid() == 0 else { return false }
        let folder = NSTemporaryDirectory() + "caucus-mount-check-" + UUID().uuidString
        guard (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil else { return false }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        guard (try? SDKRecordingStopTests().run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", folder])) != nil else { return false }
        try? SDKRecordingStopTests().run("/bin/umount", [folder])
        return true
    }()

    private func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(executable) \(arguments) failed"]) }
    }
}
