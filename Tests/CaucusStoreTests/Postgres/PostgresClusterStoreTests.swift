import CaucusCore
import CaucusPostgresTestSupport
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

        var first = SessionScript(name: "Maths")
        let (host, join) = try first.join("Ada", claim: .host)
        let maths = try await store.reserveSessionID()
        try await store.append(join, to: maths, opening: SessionOpening(app: "demo", name: "Maths", createdAt: join[0].at, lease: OpeningLease(holder: nodeA, until: at(10))))
        var second = SessionScript(name: "Art")
        let (_, artJoin) = try second.join("Bo", claim: .host)
        let art = try await store.reserveSessionID()
        try await store.append(artJoin, to: art, opening: SessionOpening(app: "demo", name: "Art", createdAt: artJoin[0].at, lease: OpeningLease(holder: nodeB, until: at(20))))

        // By name key: case does not matter; another app, an unknown name: none.
        #expect(try await store.liveSessionID(app: "demo", nameKey: SessionName.key("MATHS")) == maths)
        #expect(try await store.liveSessionID(app: "other", nameKey: SessionName.key("Maths")) == nil)
        #expect(try await store.liveSessionID(app: "demo", nameKey: SessionName.key("History")) == nil)

        // Expiry at the caller's now: before 10 none, from 10 Maths, from 20 both.
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
}
