import CaucusPostgresTestSupport
import CaucusProcessTestSupport
import CaucusTestSupport
import Foundation
import Testing

/// A node whose clock is far from the database's is refused at start, saying by how much and
/// which way: lease times are written in each node's clock, so one 15 s ahead took every
/// session within 3 s and one 15 s behind lost its own, silently. The skewed clock is real
/// time shifted for the node's process alone by libfaketime (`faketime`, which scripts/test
/// installs), its monotonic clock left alone.
@Suite(.serialized) struct ClusterClockSkewTests {
    static let faketime = "/usr/bin/faketime"

    static func serveSkewed(_ offset: String, cluster: ClusterNodes) async throws -> (status: Int32, error: String) {
        guard FileManager.default.isExecutableFile(atPath: faketime) else {
            throw TestFailure("\(faketime) is missing: scripts/test installs it (apt-get install faketime)")
        }
        let port = try #require(try FreePorts.take(1).first)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: faketime)
        process.arguments = [
            "-f", offset, ServerProcess.executable.path, "serve", "--port", "\(port)", "--media-port", "0", "--data", cluster.folder,
            "--store", cluster.database, "--node-url", "http://127.0.0.1:\(port)", "--lease-seconds", "4", "--config", cluster.folder + "/apps.json",
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(["FAKETIME_DONT_FAKE_MONOTONIC": "1"]) { _, new in new }
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        return try await offThePool {
            let data = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
    }

    @Test(arguments: [("+15s", "15.0 s ahead of"), ("-15s", "15.0 s behind")])
    func aNodeWhoseClockIsFarFromTheDatabasesIsRefusedAtStart(_ offset: String, _ said: String) async throws {
        let cluster = try await ClusterNodes(count: 1, leaseSeconds: 4)
        let host = try await cluster.nodes[0].joined("Teacher", role: .host)
        let (status, error) = try await Self.serveSkewed(offset, cluster: cluster)
        #expect(status != 0, "a node \(offset) must not start: \(error)")
        let last = error.split(separator: "\n").last { $0.hasPrefix("Error:") } ?? ""
        #expect(last.contains(said) && last.contains("the database's") && last.contains("NTP"), "\(error)")
        // The running node kept its session: the host still talks.
        try await host.request("chat", ["text": "still served"])
        cluster.nodes[0].kill(SIGKILL)
    }
}
