import CaucusCore
import CaucusStore
import PostgresNIO

/// Leases (schema version 3): a row per node in `nodes`, and on each session's row its owner
/// node, that node's epoch and the session's own epoch. A session's lease is read and written
/// under its row's lock, with its owner's node row locked FOR SHARE, so that a takeover, an
/// append of the old owner and the old owner's renewal are ordered by the database whichever
/// nodes run them. The rules are `NodeLease`'s and `SessionLease`'s, shared with SQLite.
extension PostgresSessionStore {
    public func startNodeLease(for node: NodeID, until: Instant) async throws -> NodeLease {
        try await calling { [self] in
            try await transaction(on: leaseClient) { connection in
                let previous = try await nodeRow(node, lock: .update, on: connection)
                let started = NodeLease.started(by: node, after: previous, until: until)
                if previous != nil {
                    try await writeNode(started, on: connection)
                    return started
                }
                let inserted = try await connection.query(
                    """
                    INSERT INTO nodes (id, epoch, expires_at) VALUES (\(node.rawValue), \(started.epoch.rawValue), \(until.milliseconds))
                    ON CONFLICT (id) DO NOTHING RETURNING id
                    """, logger: logger)
                for try await _ in inserted { return started }
                throw StoreError(.leaseHeld, "Another process of node \(node) started at the same moment.")
            }
        }
    }

    public func renewNodeLease(_ owner: NodeIncarnation, until: Instant) async throws -> [StoredSessionID: LeaseEpoch] {
        try await calling { [self] in
            try await transaction(on: leaseClient) { connection in
                guard let stored = try await nodeRow(owner.node, lock: .update, on: connection) else {
                    throw StoreError(.fenced, "Node \(owner.node) has no lease: it never started.")
                }
                try await writeNode(try stored.renewed(epoch: owner.epoch, until: until), on: connection)
                let rows = try await connection.query(
                    """
                    SELECT id, lease_epoch FROM sessions
                    WHERE ended_at IS NULL AND lease_holder = \(owner.node.rawValue) AND lease_owner_epoch = \(owner.epoch.rawValue)
                    """, logger: logger)
                var owned: [StoredSessionID: LeaseEpoch] = [:]
                for try await (id, epoch) in rows.decode((Int64, Int64).self) { owned[StoredSessionID(rawValue: id)] = LeaseEpoch(rawValue: epoch) }
                return owned
            }
        }
    }

    public func releaseNodeLease(_ owner: NodeIncarnation, at now: Instant) async throws {
        try await calling { [self] in
            try await transaction(on: leaseClient) { connection in
                guard let stored = try await nodeRow(owner.node, lock: .update, on: connection) else { return }
                try await writeNode(stored.released(epoch: owner.epoch, at: now), on: connection)
            }
        }
    }

    public func nodeLease(of node: NodeID) async throws -> NodeLease? {
        try await calling { [self] in
            try await withConnection { connection in try await nodeRow(node, lock: .none, on: connection) }
        }
    }

    public func acquireLease(of session: StoredSessionID, for owner: NodeIncarnation, now: Instant) async throws -> LeaseEpoch {
        try await changeLease(of: session) { state throws(StoreError) in
            try state.lease.acquired(by: owner, ownerLease: state.ownerLease, now: now, of: session)
        }
    }

    public func lease(of session: StoredSessionID) async throws -> SessionLeaseState {
        try await calling { [self] in
            try await withConnection { connection in
                guard let row = try await sessionRow(session, lock: .none, on: connection) else { throw StoreError.unknownSession(session) }
                return SessionLeaseState(lease: row.lease, ownerLease: try await ownerLease(of: row.lease, lock: .none, on: connection))
            }
        }
    }

    /// Reads the lease with the row locked FOR UPDATE and its owner's node row FOR SHARE,
    /// applies `change`, writes the result, in one transaction, on the leases' own connections.
    func changeLease(
        of session: StoredSessionID,
        _ change: @escaping @Sendable (SessionLeaseState, PostgresConnection) async throws -> SessionLease
    ) async throws -> LeaseEpoch {
        try await calling { [self] in
            try await transaction(on: leaseClient) { connection in
                guard let row = try await sessionRow(session, lock: .update, on: connection) else { throw StoreError.unknownSession(session) }
                if row.isEnded { throw StoreError.ended(session) }
                let state = SessionLeaseState(lease: row.lease, ownerLease: try await ownerLease(of: row.lease, lock: .share, on: connection))
                let changed = try await change(state, connection)
                try await connection.query(
                    """
                    UPDATE sessions SET lease_holder = \(changed.holder?.rawValue), lease_epoch = \(changed.epoch.rawValue),
                        lease_owner_epoch = \(changed.owner?.epoch.rawValue)
                    WHERE id = \(session.rawValue)
                    """, logger: logger)
                return changed.epoch
            }
        }
    }

    private func changeLease(of session: StoredSessionID, _ change: @escaping @Sendable (SessionLeaseState) throws(StoreError) -> SessionLease) async throws -> LeaseEpoch {
        try await changeLease(of: session) { state, _ in try change(state) }
    }

    /// How `sessionRow` and `nodeRow` lock the row they read, until the transaction ends.
    enum RowLock {
        case none
        /// Writers of the row (a takeover, a renewal) wait; other readers do not.
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
                "SELECT ended_at, last_seq, lease_holder, lease_epoch, lease_owner_epoch FROM sessions WHERE id = \(session.rawValue)",
                logger: logger)
        case .share:
            rows = try await connection.query(
                "SELECT ended_at, last_seq, lease_holder, lease_epoch, lease_owner_epoch FROM sessions WHERE id = \(session.rawValue) FOR SHARE",
                logger: logger)
        case .update:
            rows = try await connection.query(
                "SELECT ended_at, last_seq, lease_holder, lease_epoch, lease_owner_epoch FROM sessions WHERE id = \(session.rawValue) FOR UPDATE",
                logger: logger)
        }
        for try await (endedAt, lastSeq, holder, epoch, ownerEpoch) in rows.decode((Int64?, Int64, String?, Int64, Int64?).self) {
            return SessionRow(isEnded: endedAt != nil, lastSeq: Int(lastSeq), lease: Self.lease(holder: holder, epoch: epoch, ownerEpoch: ownerEpoch))
        }
        return nil
    }

    /// A session's lease from its columns.
    nonisolated static func lease(holder: String?, epoch: Int64, ownerEpoch: Int64?) -> SessionLease {
        let owner = holder.flatMap { holder in
            ownerEpoch.map { NodeIncarnation(node: NodeID(rawValue: holder), epoch: NodeEpoch(rawValue: $0)) }
        }
        return SessionLease(owner: owner, epoch: LeaseEpoch(rawValue: epoch))
    }

    /// The node lease of `lease`'s owner, whatever its epoch (nil: unleased, or no such node).
    nonisolated func ownerLease(of lease: SessionLease, lock: RowLock, on connection: PostgresConnection) async throws -> NodeLease? {
        guard let holder = lease.holder else { return nil }
        return try await nodeRow(holder, lock: lock, on: connection)
    }

    /// `node`'s row, locked as `lock` says.
    nonisolated func nodeRow(_ node: NodeID, lock: RowLock, on connection: PostgresConnection) async throws -> NodeLease? {
        let rows: PostgresRowSequence
        switch lock {
        case .none:
            rows = try await connection.query("SELECT epoch, expires_at FROM nodes WHERE id = \(node.rawValue)", logger: logger)
        case .share:
            rows = try await connection.query("SELECT epoch, expires_at FROM nodes WHERE id = \(node.rawValue) FOR SHARE", logger: logger)
        case .update:
            rows = try await connection.query("SELECT epoch, expires_at FROM nodes WHERE id = \(node.rawValue) FOR UPDATE", logger: logger)
        }
        for try await (epoch, expiresAt) in rows.decode((Int64, Int64).self) {
            return NodeLease(owner: NodeIncarnation(node: node, epoch: NodeEpoch(rawValue: epoch)), expiresAt: Instant(milliseconds: expiresAt))
        }
        return nil
    }

    private nonisolated func writeNode(_ lease: NodeLease, on connection: PostgresConnection) async throws {
        try await connection.query(
            "UPDATE nodes SET epoch = \(lease.epoch.rawValue), expires_at = \(lease.expiresAt.milliseconds) WHERE id = \(lease.node.rawValue)",
            logger: logger)
    }
}
