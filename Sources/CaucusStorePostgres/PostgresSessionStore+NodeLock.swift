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

    public func holdNodeLock(for node: NodeID) async throws {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: try location.connectionConfiguration(), id: 0, logger: logger)
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
                let holders = try await connection.query(
                    """
                    SELECT DISTINCT lease_holder FROM sessions
                    WHERE ended_at IS NULL AND lease_holder IS NOT NULL AND lease_holder <> \(node.rawValue)
                      AND lease_expires_at > \(now.milliseconds)
                    """, logger: logger)
                var others: [String] = []
                for try await holder in holders.decode(String.self) { others.append(holder) }
                var gone: [String] = []
                for holder in others {
                    let rows = try await connection.query(
                        "SELECT pg_try_advisory_xact_lock(hashtextextended(\(Self.lockKey(NodeID(rawValue: holder))), 0))", logger: logger)
                    for try await free in rows.decode(Bool.self) where free { gone.append(holder) }
                }
                guard !gone.isEmpty else { return [] }
                let rows = try await connection.query(
                    """
                    SELECT id FROM sessions
                    WHERE ended_at IS NULL AND lease_holder = ANY(\(gone)::text[]) AND lease_expires_at > \(now.milliseconds) ORDER BY id
                    """, logger: logger)
                var sessions: [StoredSessionID] = []
                for try await id in rows.decode(Int64.self) { sessions.append(StoredSessionID(rawValue: id)) }
                return sessions
            }
        }
    }

    public func acquireLease(of session: StoredSessionID, for node: NodeID, until: Instant, now: Instant, replacingGone gone: NodeID) async throws -> LeaseEpoch {
        try await calling { [self] in
            try await transaction(on: leaseClient) { connection in
                guard let row = try await sessionRow(session, lock: .update, on: connection) else { throw StoreError.unknownSession(session) }
                if row.isEnded { throw StoreError.ended(session) }
                // Still gone, checked under the row's lock: a node that came back holds its
                // lock again, and keeps its lease.
                let rows = try await connection.query(
                    "SELECT pg_try_advisory_xact_lock(hashtextextended(\(Self.lockKey(gone)), 0))", logger: logger)
                var free = false
                for try await value in rows.decode(Bool.self) { free = value }
                let changed =
                    free
                    ? try row.lease.takenFromGone(gone, by: node, until: until, now: now, of: session)
                    : try row.lease.acquired(by: node, until: until, now: now, of: session)
                try await connection.query(
                    """
                    UPDATE sessions SET lease_holder = \(changed.holder?.rawValue), lease_epoch = \(changed.epoch.rawValue),
                        lease_expires_at = \(changed.expiresAt?.milliseconds)
                    WHERE id = \(session.rawValue)
                    """, logger: logger)
                return changed.epoch
            }
        }
    }
}
