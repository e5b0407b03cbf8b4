import CaucusPostgresTestSupport
import CaucusTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Nodes of one cluster sign resume secrets with one server key: a node started with another
/// key while nodes of the cluster's key run is refused at start, naming both fingerprints
/// (its users' resumes would have been refused by the others, their seats lost); with the
/// same key it serves; once no node runs, a new key may replace the recorded one.
@Suite(.serialized) struct ClusterServerKeyTests {
    static func nodeArguments(port: Int, cluster: ClusterNodes) -> [String] {
        ["--node-url", "http://127.0.0.1:\(port)", "--lease-seconds", "4", "--config", cluster.folder + "/apps.json"]
    }

    @Test func aNodeWithAnotherServerKeyIsRefusedAtStartAndOneWithTheSameKeyServes() async throws {
        let cluster = try await ClusterNodes(count: 1, leaseSeconds: 4)
        let host = try await cluster.nodes[0].joined("Teacher", role: .host)

        // Another data folder: another server key.
        let stranger = TestServer.temporaryFolder()
        let port = try #require(try FreePorts.take(1).first)
        let (status, _, error) = try await ServerProcess.runToEnd(
            ["serve", "--port", "\(port)", "--media-port", "0", "--data", stranger, "--store", cluster.database]
                + Self.nodeArguments(port: port, cluster: cluster))
        #expect(status != 0, "a node with another key must not start: \(error)")
        let last = error.split(separator: "\n").last { $0.hasPrefix("Error:") } ?? ""
        #expect(last.contains("server key") && last.contains("not the cluster's") && last.contains("server.key"), "\(error)")
        #expect(last.contains(cluster.nodes[0].webSocketURL.replacingOccurrences(of: "ws://", with: "http://").replacingOccurrences(of: "/ws", with: "")), "\(error)")

        // The cluster's key copied in: the node starts and serves the host's resume.
        let twin = TestServer.temporaryFolder()
        try FileManager.default.copyItem(atPath: cluster.folder + "/server.key", toPath: twin + "/server.key")
        let node = try await ServerProcess.onAFreePort(dataDirectory: twin, store: cluster.database) {
            Self.nodeArguments(port: $0, cluster: cluster)
        }
        let secret = try #require(await host.secret)
        let back = try await ClusterClient.send(
            "resume", ["secret": secret, "lastSeq": await host.lastSeq], entries: [node.webSocketURL], first: 0, patience: 30)
        #expect(back.result["user"] as? Int == 1, "\(back.result)")
        node.kill(SIGKILL)
        cluster.nodes[0].kill(SIGKILL)
    }

    @Test func onceNoNodeRunsANewKeyReplacesTheRecordedOne() async throws {
        let cluster = try await ClusterNodes(count: 1, leaseSeconds: 4)
        cluster.nodes[0].kill(SIGKILL)
        // The dead node's lease runs out (4 s); until then it counts as running.
        try await Task.sleep(for: .seconds(6))
        let stranger = TestServer.temporaryFolder()
        let node = try await ServerProcess.onAFreePort(dataDirectory: stranger, store: cluster.database) {
            Self.nodeArguments(port: $0, cluster: cluster)
        }
        // It serves: a join needs the node's lease, which it starts after the key agreed.
        let url = node.webSocketURL
        let token = try node.token(session: "Class")
        let client = try await within(seconds: 30, "a join on the new key's node") {
            let client = try await TestClient.connect(url: url)
            try await client.join(session: "Class", userName: "Ann", token: token)
            return client
        }
        #expect(await client.secret != nil)
        node.kill(SIGKILL)
    }
}
