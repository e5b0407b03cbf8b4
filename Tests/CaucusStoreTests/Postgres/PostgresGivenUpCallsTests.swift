import CaucusCore
import CaucusPostgresTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

@testable import CaucusStore
@testable import CaucusStorePostgres

/// A caller that stops waiting (its `StoreDeadline` passed: a lease's horizon, a listing's
/// patience) must not cost the store the connection its query runs on. With PostgreSQL's slots
/// all taken by another program, a closed connection cannot be replaced: before, two slow
/// answers under load closed the two connections a node keeps, and the node could reach the
/// database no more (a resume through the surviving node of `ClusterConnectionSlotsTests`
/// timed out when the machine was busy).
@Suite(.serialized) struct PostgresGivenUpCallsTests {
    let logger = Logger(label: "test")

    @Test func callsWhoseCallersGaveUpLeaveTheStoreItsConnectionsWhenNoSlotIsFree() async throws {
        let postgres = try await CrashablePostgres(maxConnections: 16)
        let url = try await postgres.freshDatabase("given_up")
        let opened = try await TestDatabase(kind: .postgres, address: url).open()
        let store = try #require(opened.store as? PostgresSessionStore)
        let configuration = try PostgresStoreLocation(url: url).connectionConfiguration(name: "caucus-test")
        let blocker = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        // The store's pools have opened their connections (the main pool's and the leases'
        // own) before another program takes every slot left.
        let kept = PostgresSessionStore.connections + PostgresSessionStore.leaseConnections
        try await waitUntil("the store's pools are open") { try await connections(seenBy: blocker) >= 1 + kept }
        var others: [PostgresConnection] = []
        // PostgreSQL's connections must be closed before they go, whatever the test found.
        defer { Task { [others] in for connection in others + [blocker] { try? await connection.close() } } }
        while let other = try await connectUnlessRefused(configuration, id: 2 + others.count) { others.append(other) }
        let takenFirst = others.count
        #expect(takenFirst > 0)

        // Every query on `sessions` waits behind a lock; each call is given up by its caller,
        // as many as the main pool has connections and one more (which never gets one).
        try await blocker.query("BEGIN", logger: logger)
        try await blocker.query("LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE", logger: logger)
        for _ in 0...PostgresSessionStore.connections {
            let error = await #expect(throws: StoreError.self) {
                try await StoreDeadline.bounded(by: .now + .milliseconds(300)) {
                    try await store.liveSessionID(app: "demo", nameKey: "maths")
                }
            }
            #expect(error?.code == .database)
        }
        try await blocker.query("COMMIT", logger: logger)
        // Whatever slot the store frees from now on, the other program takes as soon as
        // PostgreSQL lets it go (a closed connection's backend goes once its query is over).
        let watched = ContinuousClock.now + .seconds(1)
        while ContinuousClock.now < watched {
            while let other = try await connectUnlessRefused(configuration, id: 2 + others.count) { others.append(other) }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(others.count == takenFirst, "the store freed no slot: it closed no connection")

        #expect(await answers(store), "the store answers on the connections it kept")
        #expect(try await connections(seenBy: blocker) == 1 + kept + others.count, "no connection was closed")
        await opened.close()
    }

    private func answers(_ store: PostgresSessionStore, within patience: Duration = .seconds(10)) async -> Bool {
        do {
            return try await StoreDeadline.bounded(by: .now + patience) { try await store.liveSessionID(app: "demo", nameKey: "maths") } == nil
        } catch {
            Issue.record("the store did not answer: \(error)")
            return false
        }
    }

    /// A query with no answer once it has held its connection for the store's own bound (a link
    /// gone silent, as far as the store can tell) loses that connection, and the pool opens
    /// another: the caller's deadline closes nothing, this bound does.
    @Test func aQueryUnansweredForTheStoresOwnBoundLosesItsConnection() async throws {
        try await withStore(named: "unanswered", callDeadline: .seconds(1)) { store, blocker in
            try await waitUntil("the main pool is open") { try await backends(named: "caucus", seenBy: blocker).count == PostgresSessionStore.connections }
            let before = try await backends(named: "caucus", seenBy: blocker)

            try await blocker.query("BEGIN", logger: logger)
            try await blocker.query("LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE", logger: logger)
            let error = await #expect(throws: StoreError.self) { try await store.liveSessionID(app: "demo", nameKey: "maths") }
            #expect(error?.code == .database)
            // Held past the bound: the store closes it (its backend goes once the lock lets it).
            try await Task.sleep(for: .seconds(1.5))
            try await blocker.query("COMMIT", logger: logger)
            try await waitUntil("the unanswered query's backend is gone") {
                let now = try await backends(named: "caucus", seenBy: blocker)
                return !before.isSubset(of: now)
            }
            #expect(await answers(store), "the pool opened another")
        }
    }

    /// A lease's statement that waits behind a lock (a node frozen in the middle of a
    /// transaction) is ended by PostgreSQL after half the store's bound, and its connection
    /// stays: the renewals need the two there are. Without that, it waited out the bound and
    /// was closed.
    @Test func aLeaseStatementWaitingBehindALockIsEndedByTheServerAndKeepsItsConnection() async throws {
        try await withStore(named: "lease_wait", callDeadline: .seconds(2)) { store, blocker in
            try await waitUntil("the lease pool is open") {
                try await backends(named: "caucus-leases", seenBy: blocker).count == PostgresSessionStore.leaseConnections
            }
            let before = try await backends(named: "caucus-leases", seenBy: blocker)
            let node = NodeID("http://127.0.0.1:8081")

            try await blocker.query("BEGIN", logger: logger)
            try await blocker.query("LOCK TABLE nodes IN ACCESS EXCLUSIVE MODE", logger: logger)
            let error = await #expect(throws: StoreError.self) { try await store.startNodeLease(for: node, until: Instant(milliseconds: 60_000)) }
            #expect(error?.code == .database)
            // Past the bound since it took its connection: closed by now, had PostgreSQL not ended it.
            try await Task.sleep(for: .seconds(2.5))
            try await blocker.query("COMMIT", logger: logger)
            try await Task.sleep(for: .seconds(1))
            #expect(try await backends(named: "caucus-leases", seenBy: blocker) == before, "no lease connection was closed")
            #expect(try await store.startNodeLease(for: node, until: Instant(milliseconds: 60_000)).owner.node == node)
        }
    }

    /// A connection of the pool lost (ended by the server) while no other can be opened (here
    /// the store's role may no longer log in; as well every slot taken) leaves the others
    /// serving. postgres-nio queues every call once an open fails, idle connections or not,
    /// and only an idle connection's keep-alive hands them on: one every second, not 30.
    @Test func aConnectionLostWhenNoneCanBeOpenedLeavesTheOthersServing() async throws {
        let adminURL = try await TestPostgres.shared.freshDatabase("lost_one")
        let location = try PostgresStoreLocation(url: adminURL)
        let admin = try await PostgresConnection.connect(configuration: try location.connectionConfiguration(name: "caucus-test"), id: 1, logger: logger)
        defer { Task { try? await admin.close() } }
        let role = "keeper_\(location.database)"
        for statement in ["CREATE ROLE \(role) LOGIN", "ALTER DATABASE \(location.database) OWNER TO \(role)", "GRANT ALL ON SCHEMA public TO \(role)"] {
            try await admin.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
        let url = "postgres://\(role)@\(location.host):\(location.port)/\(location.database)?sslmode=disable"
        let opened = try await TestDatabase(kind: .postgres, address: url).open()
        let store = try #require(opened.store as? PostgresSessionStore)
        try await waitUntil("the main pool is open") { try await backends(named: "caucus", seenBy: admin).count == PostgresSessionStore.connections }

        try await admin.query(PostgresQuery(unsafeSQL: "ALTER ROLE \(role) NOLOGIN"), logger: logger)
        let victim = try #require(try await backends(named: "caucus", seenBy: admin).min())
        try await admin.query("SELECT pg_terminate_backend(\(victim))", logger: logger)
        try await waitUntil("the pool lost one") { try await backends(named: "caucus", seenBy: admin).count == PostgresSessionStore.connections - 1 }
        // The pool tries to open another at once and is refused.
        try await Task.sleep(for: .milliseconds(300))

        #expect(await answers(store, within: .seconds(5)), "the store answers on the connections it has")
        try await admin.query(PostgresQuery(unsafeSQL: "ALTER ROLE \(role) LOGIN"), logger: logger)
        await opened.close()
    }

    /// A store of a fresh database whose own bound is `callDeadline`, its pools running, and a
    /// connection of the test's own to the same database.
    private func withStore(
        named name: String, callDeadline: Duration, _ body: (PostgresSessionStore, PostgresConnection) async throws -> Void
    ) async throws {
        let location = try PostgresStoreLocation(url: try await TestPostgres.shared.freshDatabase(name))
        let store = PostgresSessionStore(location: location, callDeadline: callDeadline)
        let pool = Task { try await store.run() }
        defer { pool.cancel() }
        try await store.prepare()
        let blocker = try await PostgresConnection.connect(configuration: try location.connectionConfiguration(name: "caucus-test"), id: 1, logger: logger)
        defer { Task { try? await blocker.close() } }
        try await body(store, blocker)
    }

    /// Waits (10 s at most) until `condition` holds, or records that it never did.
    private func waitUntil(_ what: String, _ condition: () async throws -> Bool) async throws {
        let giveUp = ContinuousClock.now + .seconds(10)
        while try await !condition() {
            guard ContinuousClock.now < giveUp else { throw StoreTestTimeout(what: what) }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The backends of this database whose `application_name` is `name` (the store names its pools).
    private func backends(named name: String, seenBy connection: PostgresConnection) async throws -> Set<Int32> {
        let rows = try await connection.query(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = \(name)", logger: logger)
        var pids: Set<Int32> = []
        for try await pid in rows.decode(Int32.self) { pids.insert(pid) }
        return pids
    }

    /// Connections to this database, as PostgreSQL counts them.
    private func connections(seenBy connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query("SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database()", logger: logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// A new connection, or nil when PostgreSQL refuses it for want of a slot (SQLSTATE 53300).
    private func connectUnlessRefused(_ configuration: PostgresConnection.Configuration, id: Int) async throws -> PostgresConnection? {
        do {
            return try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "53300" {
            return nil
        }
    }
}

struct StoreTestTimeout: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting until \(what)" }
}
