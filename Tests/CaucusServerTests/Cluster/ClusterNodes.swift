import CaucusAuth
import CaucusCore
import CaucusPostgresTestSupport
import CaucusStore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Several real `caucus serve` processes sharing one PostgreSQL database and one data folder
/// (the same apps and resume-secret key on every node, as the README asks of a deployment).
final class ClusterNodes {
    let nodes: [ServerProcess]
    let database: String
    let folder: String

    /// `count` nodes, each announcing `http://127.0.0.1:<its port>` as its node URL, on
    /// `database` (a fresh one of the tests' shared PostgreSQL by default). Node `i` reaches the
    /// database at `store(i, database)` (a proxy's address, say), the database by default.
    init(
        count: Int, leaseSeconds: Int, arguments: [String] = [], database: String? = nil, apps: [AppCredentials] = [ServerProcess.app],
        store: (_ node: Int, _ database: String) async throws -> String = { $1 }
    ) async throws {
        folder = TestServer.temporaryFolder()
        // Every node reads the same apps file (a node writes `ServerProcess.app` alone when there is none).
        struct AppsFile: Encodable { let apps: [AppCredentials] }
        try JSONEncoder().encode(AppsFile(apps: apps)).write(to: URL(fileURLWithPath: folder + "/apps.json"))
        if let database {
            self.database = database
        } else {
            self.database = try await ServerStore.postgres.freshDatabase() ?? ""
        }
        var started: [ServerProcess] = []
        for index in 0..<count {
            started.append(
                try await ServerProcess.onAFreePort(dataDirectory: folder, store: try await store(index, self.database)) {
                    ["--node-url", "http://127.0.0.1:\($0)", "--lease-seconds", "\(leaseSeconds)"] + arguments
                })
        }
        nodes = started
    }

    var urls: [String] { nodes.map(\.webSocketURL) }

    /// The id (node URL) of node `index`, as leases name it.
    func node(_ index: Int) -> NodeID { NodeID("http://127.0.0.1:\(nodes[index].port)") }

    func token(session: String, role: RoleClaim = .participant) throws -> String {
        try nodes[0].token(session: session, role: role)
    }
}

/// A client of several nodes, as an app would be: it sends `join` or `resume` to an entry
/// node, follows `otherNode` to the node serving the session, and tries the next entry node
/// when one cannot be reached (a dead node, or a live one that does not answer in time).
enum ClusterClient {
    struct Connected {
        let client: TestClient
        let result: JSON
        /// The node that answered.
        let url: String
    }

    static func send(
        _ op: String, _ arguments: JSON, entries: [String], first: Int, patience: Double = 60
    ) async throws -> Connected {
        try await within(seconds: patience, "\(op) through the nodes") {
            var entry = first
            while true {
                var url = entries[entry % entries.count]
                entry += 1
                for _ in 0..<3 {
                    let target = url
                    guard let answered = try? await within(seconds: 3, "\(op) at \(target)", { () async throws -> (TestClient, JSON) in
                        let client = try await TestClient.connect(url: target)
                        return (client, try await client.reply(to: try await client.send(op, arguments)))
                    }) else { break }
                    let (client, reply) = answered
                    guard let error = reply["error"] as? JSON else { return Connected(client: client, result: reply["result"] as? JSON ?? [:], url: target) }
                    await client.close()
                    switch error["code"] as? Int {
                    case 1015:
                        guard let next = error["url"] as? String else { throw TestFailure("otherNode without a url: \(error)") }
                        url = next
                        continue
                    case 1010:
                        // The node could not take the session over just now: try again.
                        break
                    default:
                        throw TestFailure("\(op) refused at \(target): \(error)")
                    }
                    break
                }
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }
}
