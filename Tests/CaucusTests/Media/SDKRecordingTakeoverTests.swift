import Caucus
import CaucusPostgresTestSupport
import CaucusRecording
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Recording outlives the node that wrote it: two real `caucus serve` nodes on one PostgreSQL
/// and one shared data folder; Ann publishes in the recorded main session on the first node,
/// which is killed (`kill -9`). Its files probe as long as they ran; the second node takes the
/// session over and, once Ann's media is back, goes on recording her into new files of the
/// same timeline.
@Suite(.serialized) struct SDKRecordingTakeoverTests {
    @Test func theNodeThatTakesTheSessionOverGoesOnRecordingIntoNewFiles() async throws {
        let database = try await TestPostgres.shared.freshDatabase("recording")
        let folder = temporaryFolder(prefix: "caucus-sdk-recording-nodes-")
        var nodes: [ServerProcess] = []
        for _ in 0..<2 {
            nodes.append(
                try await ServerProcess.onAFreePort(dataDirectory: folder, store: database) {
                    ["--node-url", "http://127.0.0.1:\($0)", "--lease-seconds", "2"]
                })
        }
        defer { for node in nodes { node.kill(SIGKILL) } }
        var configuration = BadNetworkTests.configuration
        configuration.nodeURLs = nodes.map { URL(string: $0.webSocketURL)! }
        let urls = configuration.nodeURLs
        let host = Client(configuration: configuration)
        let ann = Client(configuration: configuration)
        let hostToken = try nodes[0].token(session: "Geology", role: .host)
        let annToken = try nodes[0].token(session: "Geology")
        try await within("both join the first node") {
            try await host.session.join(url: urls[0], sessionName: "Geology", userName: "Teacher", token: hostToken)
            try await ann.session.join(url: urls[0], sessionName: "Geology", userName: "Ann", token: annToken)
        }
        let annName = "u\(try ann.snapshot.myself.id.rawValue)"
        try await ann.session.audioHelper.start()
        try await ann.session.videoHelper.start()
        let publisher = TestPublisher.start(ann.session)
        defer { publisher.cancel() }
        try await #require(host.session.subsessionManager).startRecording([.main])

        @Sendable func main() -> String? { RecordedSessionFolder.location("main", in: folder) }
        @Sendable func files(index: Int) -> Bool {
            guard let main = main() else { return false }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: main)) ?? []
            return ["audio", "video"].allSatisfy { names.contains("\(annName)-\($0)-\(index).webm") }
        }
        try await eventually(seconds: 30, "Ann's first files") { files(index: 0) }
        try await Task.sleep(for: .seconds(4))
        nodes[0].kill(SIGKILL)
        let killed = Date()
        let location = try #require(main())
        // What the killed node left: each file probes, as long as it was written (within 2 s).
        let started = try RecordedLocation.read(folder: location, strict: false)
        for file in started.files {
            let duration = Double(try #require(file.durationMilliseconds, "\(file.name) states no duration"))
            #expect(duration > 2_000 && duration < 6_500, "\(file.name) lasts \(duration) ms of about 4 s recorded")
            if FFprobe.isInstalled {
                let seconds = try FFprobe.duration(of: location + "/" + file.name)
                #expect(abs(seconds * 1_000 - duration) < 2_000, "\(file.name): ffprobe \(seconds) s")
            }
        }

        try await eventually(seconds: 90, "Ann recorded again, into new files, by the node that took over") { files(index: 1) }
        try await Task.sleep(for: .seconds(2))
        let lines = try TimelineReader.lines(try Data(contentsOf: URL(fileURLWithPath: location + "/timeline.jsonl")), strict: true)
        #expect(lines.filter { $0.event == "recordingStarted" }.count == 1, "one timeline, one clock")
        let again = try #require(lines.first { $0.event == "fileStarted" && $0.file == "\(annName)-video-1.webm" })
        let first = try #require(lines.first { $0.event == "fileStarted" && $0.file == "\(annName)-video-0.webm" })
        // On the same clock: the new file starts after the kill, as far after the first as the time between.
        let between = Int64(Date().timeIntervalSince(killed) * 1_000)
        #expect(again.t > first.t + 4_000 && again.t < first.t + 4_000 + between + 90_000, "first at \(first.t), again at \(again.t)")
        publisher.cancel()
        try? await ann.session.leave()
        try? await host.session.leave()
    }
}
