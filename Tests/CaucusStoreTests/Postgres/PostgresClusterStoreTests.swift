import CaucusCore
import CaucusPostgresTestSupport
import Logging
import PostgresNIO
import Testing

@testable import CaucusStore
@testable import CaucusStorePostgres

/// What the nodes of a cluster ask the shared store (`ClusterStore`): which live session a
/// name refers to, one session to rebuild, expired leases, and the listing with leases.
@Suite("PostgreSQL cluster store")
struct PostgresClusterStoreTests {
    let nodeA = NodeID("http://127.0.0.1:8081")
    let nodeB = NodeID("http://127.0.0.1:8082")

    func at(_ seconds: Int64) -> Instant { Instant(milliseconds: 1_800_000_000_000 + seconds * 1000) }

    @Test func namesSessionsLeasesAndExpiryAsTheNodesNeedThem() async throws {
        let database = try await StoreKind.postgres.freshDatabase()
        let opened = try await database.open()
        let store = try #require(opened.store as? PostgresSessionStore)
        let runA = try await store.startNodeLease(for: nodeA, until: at(10)).owner
        let runB = try await store.startNodeLease(for: nodeB, until: at(20)).owner

        var first = SessionScript(name: "Maths")
        let (host, join) = try first.join("Ada", claim: .host)
        let maths = try await store.reserveSessionID()
        try await store.append(join, to: maths, opening: SessionOpening(app: "demo", name: "Maths", createdAt: join[0].at, lease: OpeningLease(owner: runA)))
        var second = SessionScript(name: "Art")
        let (_, artJoin) = try second.join("Bo", claim: .host)
        let art = try await store.reserveSessionID()
        try await store.append(artJoin, to: art, opening: SessionOpening(app: "demo", name: "Art", createdAt: artJoin[0].at, lease: OpeningLease(owner: runB)))

        // By name key: case does not matter; another app, an unknown name: none.
        #expect(try await store.liveSessionID(app: "demo", nameKey: SessionName.key("MATHS")) == maths)
        #expect(try await store.liveSessionID(app: "other", nameKey: SessionName.key("Maths")) == nil)
        #expect(try await store.liveSessionID(app: "demo", nameKey: SessionName.key("History")) == nil)

        // Expiry (of the owners' node leases) at the caller's now: before 10 none, from 10
        // Maths, from 20 both.
        #expect(try await store.sessionsWithExpiredLeases(at: at(9)).isEmpty)
        #expect(try await store.sessionsWithExpiredLeases(at: at(10)) == [maths])
        #expect(try await store.sessionsWithExpiredLeases(at: at(20)) == [maths, art])

        let listing = try await store.liveSessionListing(app: "demo")
        #expect(listing.map(\.id) == [maths, art])
        #expect(listing.map(\.name) == ["Maths", "Art"])
        #expect(listing.map(\.lease.holder) == [nodeA, nodeB])
        #expect(listing.first?.lastSeq == join.last?.seq)

        // One session to rebuild, as liveSessions gives it.
        let rebuilt = try #require(try await store.liveSession(maths, replayDepth: 0))
        #expect(rebuilt.events == join)
        #expect(rebuilt.name == "Maths")

        // An ended session: no name, no rebuild, no expiry, not listed.
        try await store.append(try first.run(.endSession, by: host), to: maths, opening: nil, lease: LeaseEpoch(rawValue: 1))
        #expect(try await store.liveSessionID(app: "demo", nameKey: SessionName.key("Maths")) == nil)
        #expect(try await store.liveSession(maths, replayDepth: 0) == nil)
        #expect(try await store.sessionsWithExpiredLeases(at: at(30)) == [art])
        #expect(try await store.liveSessionListing(app: "demo").map(\.id) == [art])
        await opened.close()
    }

    /// A node whose process died (its liveness lock free) is seen by its node row, not by its
    /// sessions: the sweep lists its sessions while its lease is live, and a takeover replaces
    /// it at the next epoch; a live node's sessions are never listed.
    @Test func theSessionsOfAGoneNodeAreListedAndTakenAtTheNextEpoch() async throws {
        let database = try await StoreKind.postgres.freshDatabase()
        let opened = try await database.open()
        let store = try #require(opened.store as? PostgresSessionStore)
        let runA = try await store.startNodeLease(for: nodeA, until: at(10)).owner
        let runB = try await store.startNodeLease(for: nodeB, until: at(10)).owner
        var script = SessionScript(name: "Maths")
        let (_, join) = try script.join("Ada", claim: .host)
        let maths = try await store.reserveSessionID()
        try await store.append(join, to: maths, opening: SessionOpening(app: "demo", name: "Maths", createdAt: join[0].at, lease: OpeningLease(owner: runA)))
        // Nobody holds A's lock: A counts as gone.
        #expect(try await store.sessionsOfGoneNodes(otherThan: nodeB, at: at(5)) == [maths])
        #expect(try await store.sessionsOfGoneNodes(otherThan: nodeA, at: at(5)).isEmpty, "a node's own sessions are not listed")
        #expect(try await store.sessionsOfGoneNodes(otherThan: nodeB, at: at(10)).isEmpty, "an expired lease is the other sweep's")
        #expect(try await store.acquireLease(of: maths, for: runB, now: at(5), replacingGone: nodeA) == LeaseEpoch(rawValue: 2))
        #expect(try await store.lease(of: maths).owner == runB)
        await opened.close()
    }

    /// A database of schema version 2 (leases per session) opens: each lease holder becomes a
    /// node at its first epoch, live until the last of its sessions' leases would have run out,
    /// and its sessions keep their epochs.
    @Test func aVersion2DatabaseWithPerSessionLeasesIsMigrated() async throws {
        let url = try await TestPostgres.shared.freshDatabase("migration")
        let location = try PostgresStoreLocation(url: url)
        let connection = try await PostgresConnection.connect(configuration: try location.connectionConfiguration(name: "caucus-test"), id: 1, logger: Logger(label: "test"))
        try await connection.query("CREATE TABLE caucus_schema (version INTEGER NOT NULL)", logger: Logger(label: "test"))
        for statement in PostgresSchema.migrations.prefix(2).joined() {
            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: Logger(label: "test"))
        }
        for statement in [
            "INSERT INTO caucus_schema (version) VALUES (2)",
            "INSERT INTO sessions (id, app, name, name_key, created_at, last_seq, lease_holder, lease_epoch, lease_expires_at) VALUES (1, 'demo', 'Maths', 'maths', 0, 0, '\(nodeA.rawValue)', 3, \(at(10).milliseconds))",
            "INSERT INTO sessions (id, app, name, name_key, created_at, last_seq, lease_holder, lease_epoch, lease_expires_at) VALUES (2, 'demo', 'Art', 'art', 0, 0, '\(nodeA.rawValue)', 1, \(at(20).milliseconds))",
            "INSERT INTO sessions (id, app, name, name_key, created_at, last_seq) VALUES (3, 'demo', 'Solo', 'solo', 0, 0)",
        ] { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: Logger(label: "test")) }
        try await connection.close()

        let opened = try await TestDatabase(kind: .postgres, address: url).open()
        let store = try #require(opened.store as? PostgresSessionStore)
        #expect(try await store.schemaVersion() == PostgresSchema.version)
        let runA = NodeIncarnation(node: nodeA, epoch: .first)
        #expect(try await store.nodeLease(of: nodeA) == NodeLease(owner: runA, expiresAt: at(20)))
        #expect(try await store.lease(of: StoredSessionID(rawValue: 1)).lease == SessionLease(owner: runA, epoch: LeaseEpoch(rawValue: 3)))
        #expect(try await store.lease(of: StoredSessionID(rawValue: 3)).lease == .never)
        #expect(try await store.sessionsWithExpiredLeases(at: at(19)).isEmpty)
        #expect(try await store.sessionsWithExpiredLeases(at: at(20)) == [1, 2].map(StoredSessionID.init(rawValue:)))
        await opened.close()
    }

    /// A node's liveness lock is held on a connection of its own that says what it is in
    /// `pg_stat_activity` (`caucus-liveness`, beside the pools' `caucus` and `caucus-leases`):
    /// an operator counting a node's slots sees all three. Its end frees the lock.
    @Test func theLivenessLockIsHeldOnAConnectionNamedForIt() async throws {
        let url = try await TestPostgres.shared.freshDatabase("liveness")
        let opened = try await TestDatabase(kind: .postgres, address: url).open()
        let store = try #require(opened.store as? PostgresSessionStore)
        let logger = Logger(label: "test")
        let observer = try await PostgresConnection.connect(
            configuration: try PostgresStoreLocation(url: url).connectionConfiguration(name: "caucus-test"), id: 1, logger: logger)
        /// The names of the backends of this database that hold an advisory lock.
        func lockHolders() async throws -> [String] {
            let rows = try await observer.query(
                """
                SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                WHERE l.locktype = 'advisory' AND a.datname = current_database()
                """, logger: logger)
            var names: [String] = []
            for try await name in rows.decode(String.self) { names.append(name) }
            return names
        }
        #expect(try await lockHolders().isEmpty)
        let holding = Task { try await store.holdNodeLock(for: nodeA) }
        let giveUp = ContinuousClock.now + .seconds(10)
        while try await lockHolders().isEmpty, ContinuousClock.now < giveUp { try await Task.sleep(for: .milliseconds(20)) }
        #expect(try await lockHolders() == [PostgresSessionStore.livenessConnectionName])
        #expect(try await !store.isNodeGone(nodeA))
        holding.cancel()
        _ = await holding.result
        while try await !lockHolders().isEmpty, ContinuousClock.now < giveUp { try await Task.sleep(for: .milliseconds(20)) }
        #expect(try await store.isNodeGone(nodeA), "the lock went with its connection")
        try await observer.close()
        await opened.close()
    }
}
