import CaucusCore
import CaucusStore
import PostgresNIO

/// What a starting node settles with the cluster through the database: one server key, and
/// how far its clock is from the database's.
extension PostgresSessionStore {
    public func agreeOnServerKey(_ fingerprint: String, node: NodeID, at now: Instant) async throws -> ServerKeyAgreement {
        try await calling { [self] in
            try await transaction { connection in
                // The row is locked for the transaction, so two nodes starting at once with
                // different keys cannot both record theirs.
                try await connection.query(
                    "INSERT INTO cluster_identity (id, server_key_fingerprint) VALUES (1, \(fingerprint)) ON CONFLICT (id) DO NOTHING",
                    logger: logger)
                var recorded = fingerprint
                let rows = try await connection.query("SELECT server_key_fingerprint FROM cluster_identity WHERE id = 1 FOR UPDATE", logger: logger)
                for try await value in rows.decode(String.self) { recorded = value }
                guard recorded != fingerprint else { return .agreed }
                let nodes = try await connection.query(
                    "SELECT id FROM nodes WHERE id <> \(node.rawValue) AND expires_at > \(now.milliseconds) ORDER BY id", logger: logger)
                var live: [NodeID] = []
                for try await id in nodes.decode(String.self) { live.append(NodeID(rawValue: id)) }
                guard live.isEmpty else { return .differs(recorded: recorded, liveNodes: live) }
                try await connection.query("UPDATE cluster_identity SET server_key_fingerprint = \(fingerprint) WHERE id = 1", logger: logger)
                return .replaced(previous: recorded)
            }
        }
    }

    public func storeClock() async throws -> Instant {
        try await calling { [self] in
            try await withConnection { connection in
                // clock_timestamp(), not now(): the time of this call, not of a transaction's start.
                let rows = try await connection.query("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint", logger: logger)
                for try await milliseconds in rows.decode(Int64.self) { return Instant(milliseconds: milliseconds) }
                throw StoreError(.database, "The database did not say what time it is.")
            }
        }
    }
}
