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
        let configuration = try PostgresStoreLocation(url: url).connectionConfiguration()
        let blocker = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        // The store's pools have opened their connections (the main pool's and the leases'
        // own) before another program takes every slot left.
        let kept = PostgresSessionStore.connections + PostgresSessionStore.leaseConnections
        while try await connections(seenBy: blocker) < 1 + kept {
            try await Task.sleep(for: .milliseconds(50))
        }
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

    private func answers(_ store: PostgresSessionStore) async -> Bool {
        do {
            return try await store.liveSessionID(app: "demo", nameKey: "maths") == nil
        } catch {
            Issue.record("the store did not answer: \(error)")
            return false
        }
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
