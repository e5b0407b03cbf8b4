import CaucusCore
import CaucusStore
import Foundation
import Testing

/// Issue 27, item 5: what leases cost the database does not grow with a node's sessions.
@Suite(.serialized) struct ClusterLeaseLoadTests {
    /// A node serving 500 idle sessions, its lease renewed every second (3 s lease): over 12
    /// renewal periods the database commits a few transactions per period (the node's renewal
    /// and its sweeps), not one per session per period (6,000 with leases per session), and
    /// no session changes owner or epoch; every client is still served.
    @Test func aNodeHolding500SessionsCostsTheDatabaseAFewTransactionsPerRenewal() async throws {
        let cluster = try await ClusterNodes(count: 1, leaseSeconds: 3)
        var clients: [TestClient] = []
        for index in 0..<500 {
            let client = try await TestClient.connect(url: cluster.urls[0])
            try await client.join(session: "Room \(index)", userName: "Ann", token: try cluster.token(session: "Room \(index)"))
            clients.append(client)
        }
        // PostgreSQL counts a backend's transactions when it goes idle, up to ten seconds late:
        // the joins' own are counted before the first reading.
        try await Task.sleep(for: .seconds(12))
        let before = try await StoreReader.committedTransactions(in: cluster.database)
        let owners = try await StoreReader.owners(in: cluster.database)
        try await Task.sleep(for: .seconds(12))
        let after = try await StoreReader.committedTransactions(in: cluster.database)

        #expect(owners.count == 500)
        #expect(after - before < 250, "\(after - before) transactions in 12 renewal periods of 500 sessions")
        #expect(try await StoreReader.owners(in: cluster.database) == owners, "no session moved")
        for client in clients { _ = try await client.request("ping") }
        for client in clients { await client.close() }
        for node in cluster.nodes { node.kill(SIGKILL) }
    }
}
