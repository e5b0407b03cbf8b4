import CaucusCore
import CaucusStore
import PostgresNIO

/// What the nodes of a cluster ask the shared store (see `ClusterStore`).
extension PostgresSessionStore: ClusterStore {
    public func liveSessionID(app: String, nameKey: String) async throws -> StoredSessionID? {
        try await calling { [self] in
            try await withConnection { connection in
                let rows = try await connection.query(
                    "SELECT id FROM sessions WHERE app = \(app) AND name_key = \(nameKey) AND ended_at IS NULL", logger: logger)
                for try await id in rows.decode(Int64.self) { return StoredSessionID(rawValue: id) }
                return nil
            }
        }
    }

    public func liveSession(_ id: StoredSessionID, replayDepth: Int) async throws -> StoredSession? {
        try await liveSessions(replayDepth: replayDepth, only: id).first
    }

    public func sessionsWithExpiredLeases(at now: Instant) async throws -> [StoredSessionID] {
        try await calling { [self] in
            try await withConnection { connection in
                let rows = try await connection.query(
                    """
                    SELECT id FROM sessions
                    WHERE ended_at IS NULL AND lease_expires_at IS NOT NULL AND lease_expires_at <= \(now.milliseconds) ORDER BY id
                    """, logger: logger)
                var expired: [StoredSessionID] = []
                for try await id in rows.decode(Int64.self) { expired.append(StoredSessionID(rawValue: id)) }
                return expired
            }
        }
    }

    public func liveSessionListing(app: String) async throws -> [ListedSession] {
        try await calling { [self] in
            try await withConnection { connection in
                let rows = try await connection.query(
                    """
                    SELECT id, name, created_at, last_seq, lease_holder, lease_epoch, lease_expires_at FROM sessions
                    WHERE app = \(app) AND ended_at IS NULL ORDER BY id
                    """, logger: logger)
                var sessions: [ListedSession] = []
                for try await (id, name, createdAt, lastSeq, holder, epoch, expiresAt) in rows.decode((Int64, String, Int64, Int64, String?, Int64, Int64?).self) {
                    let lease = SessionLease(
                        holder: holder.map(NodeID.init(rawValue:)), epoch: LeaseEpoch(rawValue: epoch),
                        expiresAt: expiresAt.map(Instant.init(milliseconds:)))
                    sessions.append(
                        ListedSession(
                            id: StoredSessionID(rawValue: id), name: name, createdAt: Instant(milliseconds: createdAt), lastSeq: Int(lastSeq), lease: lease))
                }
                return sessions
            }
        }
    }
}
