import CaucusCore
import Foundation
import Testing

/// Nodes sharing one data folder: a node cannot see what another records, so it deletes
/// nothing of a session another node serves, whose files may be being written there.
@Suite(.serialized) struct ClusterRecordingDeletionTests {
    @Test func aNodeDeletesNoRecordingsOfASessionAnotherNodeServes() async throws {
        let cluster = try await ClusterNodes(count: 2, leaseSeconds: 10)
        defer { for node in cluster.nodes { node.kill(SIGKILL) } }
        let (first, second) = (cluster.nodes[0], cluster.nodes[1])
        let host = try await TestClient.connect(url: first.webSocketURL)
        try await host.join(session: "Class", userName: "Teacher", token: try cluster.token(session: "Class", role: .host))
        let credentials = "\(ServerProcess.app.key):\(ServerProcess.app.secret)"
        func control(_ method: String, _ path: String, on port: Int, body: String? = nil) async throws -> Curl.Result {
            var arguments = ["-u", credentials, "-X", method]
            if let body { arguments += ["-H", "Content-Type: application/json", "--data", body] }
            return try await Curl.run(arguments + ["http://127.0.0.1:\(port)\(path)"])
        }
        let listed = try await control("GET", "/v1/sessions", on: first.port)
        let id = try #require((listed.json["sessions"] as? [JSON])?.first?["id"] as? Int)
        let started = try await control("POST", "/v1/sessions/\(id)/recording/start", on: first.port, body: #"{"locations": [null]}"#)
        #expect(started.status == 200, "\(started.body)")
        let timeline = cluster.folder + "/recordings/\(id)/main/timeline.jsonl"
        try await within("the main session's timeline in the shared folder") {
            while !FileManager.default.fileExists(atPath: timeline) { try await Task.sleep(for: .milliseconds(20)) }
        }

        for path in ["/v1/sessions/\(id)/recordings/main", "/v1/sessions/\(id)/recordings"] {
            let refused = try await control("DELETE", path, on: second.port)
            #expect(refused.status == 409 && refused.body.contains("7006"), "DELETE \(path) on the other node: \(refused.status) \(refused.body)")
            #expect(FileManager.default.fileExists(atPath: timeline), "the other node deleted a location being recorded")
        }
        // Stopped, it is the serving node's to delete: the other still refuses while the session lives.
        #expect(try await control("POST", "/v1/sessions/\(id)/recording/stop", on: first.port, body: #"{"all": true}"#).status == 200)
        try await within("the recording stopped") {
            while (try? String(contentsOfFile: timeline, encoding: .utf8))?.contains("recordingStopped") != true {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(try await control("DELETE", "/v1/sessions/\(id)/recordings/main", on: second.port).status == 409)
        let deleted = try await control("DELETE", "/v1/sessions/\(id)/recordings/main", on: first.port)
        #expect(deleted.status == 200, "\(deleted.body)")
        #expect(!FileManager.default.fileExists(atPath: timeline))
    }
}
