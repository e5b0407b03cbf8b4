import CaucusCore
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A node that finds another took its session over (it was stopped past its lease) ends its
/// part of the recording saying so, `leaseLost`, not `ended`: the session goes on elsewhere.
@Suite(.serialized) struct ClusterRecordingLeaseTests {
    @Test func aNodeThatLostTheSessionsLeaseEndsItsRecordingSayingSo() async throws {
        let cluster = try await ClusterNodes(count: 2, leaseSeconds: 2)
        defer { for node in cluster.nodes { node.kill(SIGKILL) } }
        let (owner, other) = (cluster.nodes[0], cluster.nodes[1])
        let host = try await TestClient.connect(url: owner.webSocketURL)
        try await host.join(session: "Class", userName: "Teacher", token: try cluster.token(session: "Class", role: .host))
        let secret = try #require(await host.secret)
        let session = try #require(Int64(secret.split(separator: ".")[0]))
        let started = try await Curl.run([
            "-u", "\(ServerProcess.app.key):\(ServerProcess.app.secret)", "-X", "POST", "-H", "Content-Type: application/json",
            "--data", #"{"locations": [null]}"#, "http://127.0.0.1:\(owner.port)/v1/sessions/\(session)/recording/start",
        ])
        #expect(started.status == 200, "\(started.body)")
        let timeline = cluster.folder + "/recordings/\(session)/main/timeline.jsonl"
        // Its first line written, not just the file made: a node that takes the session over
        // removes a timeline holding no whole line (as after a crash between the two), and the
        // owner stopped in between would go on writing to a file no longer there.
        try await within("the main session's timeline") {
            while (try? String(contentsOfFile: timeline, encoding: .utf8)).map({ $0.contains("recordingStarted") && $0.hasSuffix("\n") }) != true {
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        // The owner stops past its lease; a join through the other node takes the session over.
        kill(owner.process.processIdentifier, SIGSTOP)
        let ben = try await ClusterClient.send(
            "join", ["session": "Class", "userName": "Ben", "token": try cluster.token(session: "Class")], entries: [other.webSocketURL],
            first: 0, patience: 40)
        #expect(ben.url == other.webSocketURL)
        kill(owner.process.processIdentifier, SIGCONT)
        #expect(try await within("the host's close") { try await host.closed() } == 4007)
        do {
            try await within("the woken owner's end of its recording") {
                while (try? String(contentsOfFile: timeline, encoding: .utf8))?.contains(#""reason":"leaseLost""#) != true {
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
        } catch {
            throw TestFailure("\(error); the timeline holds: \((try? String(contentsOfFile: timeline, encoding: .utf8)) ?? "nothing")")
        }
        let text = try String(contentsOfFile: timeline, encoding: .utf8)
        #expect(!text.contains(#""reason":"ended""#), "the session did not end: \(text)")
    }
}
