import CaucusCore
import CaucusStore
import PostgresNIO

/// Sessions' leases: columns of the session's row (schema version 2), read and written under
/// the row's lock, so that a takeover and an append of the old holder are ordered by the
/// database whichever nodes run them.
extension PostgresSessionStore {
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
        try await calling { [self] in
            try await withConnection { connection in
                guard let row = try await sessionRow(session, lock: .none, on: connection) else { throw StoreError.unknownSession(session) }
                return row.lease
            }
        }
    }

    /// Reads the lease with the row locked FOR UPDATE, applies `change` (the rules are
    /// `SessionLease`'s, shared with SQLite), writes the result, in one transaction, on the
    /// leases' own connections.
    private func changeLease(of session: StoredSessionID, _ change: @escaping @Sendable (SessionLease) throws(StoreError) -> SessionLease) async throws -> LeaseEpoch {
        try await calling { [self] in
            try await transaction(on: leaseClient) { connection in
                guard let row = try await sessionRow(session, lock: .update, on: connection) else { throw StoreError.unknownSession(session) }
                if row.isEnded { throw StoreError.ended(session) }
                let changed = try change(row.lease)
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

    /// How `sessionRow` locks the row it reads, until the transaction ends.
    enum RowLock {
        case none
        /// Writers of the row (a takeover) wait; other readers do not.
        case share
        /// Everyone else who locks or writes the row waits.
        case update
    }

    /// What fencing and its diagnosis read of a session's row.
    struct SessionRow {
        let isEnded: Bool
        let lastSeq: Int
        let lease: SessionLease
    }

    /// The session's row (nil if there is none), locked as `lock` says.
    nonisolated func sessionRow(_ session: StoredSessionID, lock: RowLock, on connection: PostgresConnection) async throws -> SessionRow? {
        let rows: PostgresRowSequence
        switch lock {
        case .none:
            rows = try await connection.query(
                "SELECT ended_at, last_seq, lease_holder, lease_epoch, lease_expires_at FROM sessions WHERE id = \(session.rawValue)",
                logger: logger)
        case .share:
            rows = try await connection.query(
                "SELECT ended_at, last_seq, lease_holder, lease_epoch, lease_expires_at FROM sessions WHERE id = \(session.rawValue) FOR SHARE",
                logger: logger)
        case .update:
            rows = try await connection.query(
                "SELECT ended_at, last_seq, lease_holder, lease_epoch, lease_expires_at FROM sessions WHERE id = \(session.rawValue) FOR UPDATE",
                logger: logger)
        }
        for try await (endedAt, lastSeq, holder, epoch, expiresAt) in rows.decode((Int64?, Int64, String?, Int64, Int64?).self) {
            let lease = SessionLease(
                holder: holder.map(NodeID.init(rawValue:)), epoch: LeaseEpoch(rawValue: epoch),
                expiresAt: expiresAt.map(Instant.init(milliseconds:)))
            return SessionRow(isEnded: endedAt != nil, lastSeq: Int(lastSeq), lease: lease)
        }
        return nil
    }
}
