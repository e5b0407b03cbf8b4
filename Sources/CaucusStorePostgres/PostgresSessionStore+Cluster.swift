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

    public func liveSessionStart(app: String, nameKey: String) async throws -> SessionStarted? {
        try await calling { [self] in
            try await withConnection { connection in
                let rows = try await connection.query(
                    """
                    SELECT s.id, e.at, e.body FROM sessions s JOIN events e ON e.session_id = s.id AND e.seq = 1
                    WHERE s.app = \(app) AND s.name_key = \(nameKey) AND s.ended_at IS NULL
                    """, logger: logger)
                for try await (id, at, body) in rows.decode((Int64, Int64, String).self) {
                    let first = try coding.event(seq: 1, at: Instant(milliseconds: at), body: body, in: StoredSessionID(rawValue: id))
                    guard case .sessionStarted(let started) = first.event else { return nil }
                    return started
                }
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
                // Not live: no owner row at the session's owner epoch that runs past `now`.
                let rows = try await connection.query(
                    """
                    SELECT s.id FROM sessions s
                    WHERE s.ended_at IS NULL AND s.lease_holder IS NOT NULL
                      AND NOT EXISTS (
                        SELECT 1 FROM nodes n
                        WHERE n.id = s.lease_holder AND n.epoch = s.lease_owner_epoch AND n.expires_at > \(now.milliseconds))
                    ORDER BY s.id
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
                    SELECT s.id, s.name, s.created_at, s.last_seq, s.lease_holder, s.lease_epoch, s.lease_owner_epoch, n.epoch, n.expires_at
                    FROM sessions s LEFT JOIN nodes n ON n.id = s.lease_holder
                    WHERE s.app = \(app) AND s.ended_at IS NULL ORDER BY s.id
                    """, logger: logger)
                var sessions: [ListedSession] = []
                for try await (id, name, createdAt, lastSeq, holder, epoch, ownerEpoch, nodeEpoch, nodeExpiresAt) in rows.decode(
                    (Int64, String, Int64, Int64, String?, Int64, Int64?, Int64?, Int64?).self)
                {
                    let stored = Self.lease(holder: holder, epoch: epoch, ownerEpoch: ownerEpoch)
                    var ownerLease: NodeLease?
                    if let holder, let nodeEpoch, let nodeExpiresAt {
                        ownerLease = NodeLease(
                            owner: NodeIncarnation(node: NodeID(rawValue: holder), epoch: NodeEpoch(rawValue: nodeEpoch)),
                            expiresAt: Instant(milliseconds: nodeExpiresAt))
                    }
                    let lease = SessionLeaseState(lease: stored, ownerLease: ownerLease)
                    sessions.append(
                        ListedSession(
                            id: StoredSessionID(rawValue: id), name: name, createdAt: Instant(milliseconds: createdAt), lastSeq: Int(lastSeq), lease: lease))
                }
                return sessions
            }
        }
    }
}
