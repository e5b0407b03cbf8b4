import CaucusCore
import CaucusStore
import PostgresNIO

/// Each node's liveness lock: a session-level advisory lock, keyed by the node's id, that a
/// node holds on a connection of its own for as long as it runs. PostgreSQL releases it the
/// moment that connection closes — as when the node's process dies — so other nodes see a
/// dead node at once and take its sessions over without waiting for their leases to expire.
/// A node that is frozen or behind a silent link keeps its connection, hence its lock, in
/// PostgreSQL's eyes: its leases expire as before and fence it.
extension PostgresSessionStore {
    /// The advisory lock's key: a 64-bit hash PostgreSQL computes, the same on every node.
    private static func lockKey(_ node: NodeID) -> String { "caucus-node:" + node.rawValue }
    /// The lock's connection's `application_name`, beside the pools' `caucus` and `caucus-leases`.
    static let livenessConnectionName = "caucus-liveness"

    public func holdNodeLock(for node: NodeID) async throws {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: try location.connectionConfiguration(name: Self.livenessConnectionName), id: 0, logger: logger)
        } catch {
            throw StoreError(.database, "No connection for the node's liveness lock: \(Self.describe(error))")
        }
        do {
            let rows = try await connection.query("SELECT pg_try_advisory_lock(hashtextextended(\(Self.lockKey(node)), 0))", logger: logger)
            var locked = false
            for try await value in rows.decode(Bool.self) { locked = value }
            guard locked else { throw StoreError(.leaseHeld, "Another process holds the liveness lock of \(node).") }
            try await withTaskCancellationHandler {
                try await connection.closeFuture.get()
            } onCancel: {
                connection.close().whenComplete { _ in }
            }
        } catch {
            try? await connection.close()
            if let error = error as? StoreError { throw error }
            throw StoreError(.database, Self.describe(error))
        }
    }

    public func isNodeGone(_ node: NodeID) async throws -> Bool {
        try await calling { [self] in
            // A lock of the transaction's own, released at its end: it can be had only while
            // no process holds the node's lock.
            try await transaction { connection in
                let rows = try await connection.query(
                    "SELECT pg_try_advisory_xact_lock(hashtextextended(\(Self.lockKey(node)), 0))", logger: logger)
                var free = false
                for try await value in rows.decode(Bool.self) { free = value }
                return free
            }
        }
    }

    public func sessionsOfGoneNodes(otherThan node: NodeID, at now: Instant) async throws -> [StoredSessionID] {
        try await calling { [self] in
            try await transaction { connection in
                // The nodes whose lease is live, then those of them whose lock is free: a few
                // rows, whatever the number of sessions.
                let nodes = try await connection.query(
                    "SELECT id FROM nodes WHERE id <> \(node.rawValue) AND expires_at > \(now.milliseconds)", logger: logger)
                var others: [String] = []
                for try await other in nodes.decode(String.self) { others.append(other) }
                var gone: [String] = []
                for other in others {
                    let rows = try await connection.query(
                        "SELECT pg_try_advisory_xact_lock(hashtextextended(\(Self.lockKey(NodeID(rawValue: other))), 0))", logger: logger)
                    for try await free in rows.decode(Bool.self) where free { gone.append(other) }
                }
                guard !gone.isEmpty else { return [] }
                let rows = try await connection.query(
                    """
                    SELECT s.id FROM sessions s JOIN nodes n ON n.id = s.lease_holder AND n.epoch = s.lease_owner_epoch
                    WHERE s.ended_at IS NULL AND s.lease_holder = ANY(\(gone)::text[]) AND n.expires_at > \(now.milliseconds) ORDER BY s.id
                    """, logger: logger)
                var sessions: [StoredSessionID] = []
                for try await id in rows.decode(Int64.self) { sessions.append(StoredSessionID(rawValue: id)) }
                return sessions
            }
        }
    }

    public func acquireLease(of session: StoredSessionID, for owner: NodeIncarnation, now: Instant, replacingGone gone: NodeID) async throws -> LeaseEpoch {
        try await changeLease(of: session) { [self] state, connection in
            // Still gone, checked under the row's lock: a node that came back holds its lock
            // again, and keeps its lease.
            let rows = try await connection.query(
                "SELECT pg_try_advisory_xact_lock(hashtextextended(\(Self.lockKey(gone)), 0))", logger: logger)
            var free = false
            for try await value in rows.decode(Bool.self) { free = value }
            guard free, state.holder == gone else { return try state.lease.acquired(by: owner, ownerLease: state.ownerLease, now: now, of: session) }
            return try state.lease.takenFromGone(by: owner, ownerLease: state.ownerLease, now: now, of: session)
        }
    }
}
