import CaucusCore
import CaucusStore
import SQLiteNIO

/// Sessions' leases: columns of the session's row (schema version 4), read and written in
/// IMMEDIATE transactions, so that a second store on the file (another process) and this one
/// are ordered by SQLite's write lock. The rules are `SessionLease`'s, shared with PostgreSQL.
extension SQLiteSessionStore {
    public func acquireLease(of session: StoredSessionID, for node: NodeID, until: Instant, now: Instant) async throws -> LeaseEpoch {
        try await changeLease(of: session) { lease throws(StoreError) in
            try lease.acquired(by: node, until: until, now: now, of: session)
        }
    }

    public func renewLease(of session: StoredSessionID, for node: NodeID, epoch: LeaseEpoch, until: Instant, now: Instant) async throws {
        _ = try await changeLease(of: session) { lease throws(StoreError) in
            try lease.renewed(by: node, epoch: epoch, until: until, now: now, of: session)
        }
    }

    public func lease(of session: StoredSessionID) async throws -> SessionLease {
        try await exclusive { try await storedLease(of: session) }
    }

    private func changeLease(of session: StoredSessionID, _ change: (SessionLease) throws(StoreError) -> SessionLease) async throws -> LeaseEpoch {
        try await exclusive {
            try await transaction(.immediate) {
                let changed = try change(try await storedLease(of: session, refusingEnded: true))
                _ = try await connection.query(
                    "UPDATE sessions SET lease_holder = ?1, lease_epoch = ?2, lease_expires_at = ?3 WHERE id = ?4",
                    [
                        changed.holder.map { .text($0.rawValue) } ?? .null, .integer(SQLiteInt64(changed.epoch.rawValue)),
                        changed.expiresAt.map(SQLiteData.init) ?? .null, SQLiteData(session),
                    ])
                return changed.epoch
            }
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
            "SELECT ended_at, lease_holder, lease_epoch, lease_expires_at FROM sessions WHERE id = ?1", [SQLiteData(session)])
        guard let row = rows.first else { throw StoreError.unknownSession(session) }
        if refusingEnded, try row.optionalInt64("ended_at") != nil { throw StoreError.ended(session) }
        return SessionLease(
            holder: try row.optionalText("lease_holder").map(NodeID.init(rawValue:)),
            epoch: LeaseEpoch(rawValue: try row.int64("lease_epoch")),
            expiresAt: try row.optionalInstant("lease_expires_at"))
    }
}
