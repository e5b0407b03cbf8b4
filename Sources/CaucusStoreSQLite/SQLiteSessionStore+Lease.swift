import CaucusCore
import CaucusStore
import SQLiteNIO

/// Leases (schema version 5): a row per node in `nodes`, and on each session's row its owner
/// node, that node's epoch and the session's own epoch, read and written in IMMEDIATE
/// transactions, so that a second store on the file (another process) and this one are
/// ordered by SQLite's write lock. The rules are `NodeLease`'s and `SessionLease`'s, shared
/// with PostgreSQL.
extension SQLiteSessionStore {
    public func startNodeLease(for node: NodeID, until: Instant) async throws -> NodeLease {
        try await exclusive {
            try await transaction(.immediate) {
                let started = NodeLease.started(by: node, after: try await storedNodeLease(of: node), until: until)
                try await writeNode(started)
                return started
            }
        }
    }

    public func renewNodeLease(_ owner: NodeIncarnation, until: Instant) async throws -> [StoredSessionID: LeaseEpoch] {
        try await exclusive {
            try await transaction(.immediate) {
                guard let stored = try await storedNodeLease(of: owner.node) else {
                    throw StoreError(.fenced, "Node \(owner.node) has no lease: it never started.")
                }
                try await writeNode(try stored.renewed(epoch: owner.epoch, until: until))
                let rows = try await connection.query(
                    "SELECT id, lease_epoch FROM sessions WHERE ended_at IS NULL AND lease_holder = ?1 AND lease_owner_epoch = ?2",
                    [.text(owner.node.rawValue), .integer(SQLiteInt64(owner.epoch.rawValue))])
                var owned: [StoredSessionID: LeaseEpoch] = [:]
                for row in rows { owned[try row.sessionID("id")] = LeaseEpoch(rawValue: try row.int64("lease_epoch")) }
                return owned
            }
        }
    }

    public func releaseNodeLease(_ owner: NodeIncarnation, at now: Instant) async throws {
        try await exclusive {
            try await transaction(.immediate) {
                guard let stored = try await storedNodeLease(of: owner.node) else { return }
                try await writeNode(stored.released(epoch: owner.epoch, at: now))
            }
        }
    }

    public func nodeLease(of node: NodeID) async throws -> NodeLease? {
        try await exclusive { try await storedNodeLease(of: node) }
    }

    public func acquireLease(of session: StoredSessionID, for owner: NodeIncarnation, now: Instant) async throws -> LeaseEpoch {
        try await exclusive {
            try await transaction(.immediate) {
                let lease = try await storedLease(of: session, refusingEnded: true)
                let ownerLease = try await ownerLease(of: lease)
                let changed = try lease.acquired(by: owner, ownerLease: ownerLease, now: now, of: session)
                _ = try await connection.query(
                    "UPDATE sessions SET lease_holder = ?1, lease_epoch = ?2, lease_owner_epoch = ?3 WHERE id = ?4",
                    [
                        changed.holder.map { .text($0.rawValue) } ?? .null, .integer(SQLiteInt64(changed.epoch.rawValue)),
                        changed.owner.map { .integer(SQLiteInt64($0.epoch.rawValue)) } ?? .null, SQLiteData(session),
                    ])
                return changed.epoch
            }
        }
    }

    public func lease(of session: StoredSessionID) async throws -> SessionLeaseState {
        try await exclusive {
            let lease = try await storedLease(of: session)
            let ownerLease = try await ownerLease(of: lease)
            return SessionLeaseState(lease: lease, ownerLease: ownerLease)
        }
    }

    /// Refuses (`fenced`) a write carrying `lease` unless it is the session's current epoch;
    /// also refuses an unknown or ended session. Call inside the write's transaction.
    func checkWrite(to session: StoredSessionID, lease: LeaseEpoch?) async throws {
        try await storedLease(of: session, refusingEnded: true).checkWrite(claimed: lease, to: session)
    }

    /// The session's lease as the file holds it. Call only inside `exclusive`.
    func storedLease(of session: StoredSessionID, refusingEnded: Bool = false) async throws -> SessionLease {
        let rows = try await connection.query(
            "SELECT ended_at, lease_holder, lease_epoch, lease_owner_epoch FROM sessions WHERE id = ?1", [SQLiteData(session)])
        guard let row = rows.first else { throw StoreError.unknownSession(session) }
        if refusingEnded, try row.optionalInt64("ended_at") != nil { throw StoreError.ended(session) }
        let holder = try row.optionalText("lease_holder")
        let ownerEpoch = try row.optionalInt64("lease_owner_epoch")
        let owner = holder.flatMap { holder in
            ownerEpoch.map { NodeIncarnation(node: NodeID(rawValue: holder), epoch: NodeEpoch(rawValue: $0)) }
        }
        return SessionLease(owner: owner, epoch: LeaseEpoch(rawValue: try row.int64("lease_epoch")))
    }

    /// `node`'s lease as the file holds it. Call only inside `exclusive`.
    private func storedNodeLease(of node: NodeID) async throws -> NodeLease? {
        let rows = try await connection.query("SELECT epoch, expires_at FROM nodes WHERE id = ?1", [.text(node.rawValue)])
        guard let row = rows.first else { return nil }
        return NodeLease(owner: NodeIncarnation(node: node, epoch: NodeEpoch(rawValue: try row.int64("epoch"))), expiresAt: try row.instant("expires_at"))
    }

    /// The node lease of `lease`'s owner, whatever its epoch. Call only inside `exclusive`.
    private func ownerLease(of lease: SessionLease) async throws -> NodeLease? {
        guard let holder = lease.holder else { return nil }
        return try await storedNodeLease(of: holder)
    }

    private func writeNode(_ lease: NodeLease) async throws {
        _ = try await connection.query(
            "INSERT INTO nodes (id, epoch, expires_at) VALUES (?1, ?2, ?3) ON CONFLICT (id) DO UPDATE SET epoch = excluded.epoch, expires_at = excluded.expires_at",
            [.text(lease.node.rawValue), .integer(SQLiteInt64(lease.epoch.rawValue)), SQLiteData(lease.expiresAt)])
    }
}
