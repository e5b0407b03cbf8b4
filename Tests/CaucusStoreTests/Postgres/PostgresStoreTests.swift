import CaucusCore
import CaucusPostgresTestSupport
import Testing

@testable import CaucusStore
@testable import CaucusStorePostgres

/// What only the PostgreSQL store does: its URL, its schema table, several nodes migrating
/// one database at once, and the durability each commit asks for.
@Suite("PostgreSQL store")
struct PostgresStoreTests {
    @Test func aURLNamesTheServerUserAndDatabase() throws {
        let full = try PostgresStoreLocation(url: "postgres://ada:s%40cret@db.example:6543/caucus?sslmode=require")
        #expect(full.host == "db.example")
        #expect(full.port == 6543)
        #expect(full.username == "ada")
        #expect(full.password == "s@cret")
        #expect(full.database == "caucus")
        #expect(full.sslMode == .require)
        #expect(full.description == "postgres://ada@db.example:6543/caucus", "no password in what is logged")

        let short = try PostgresStoreLocation(url: "postgresql://ada@127.0.0.1/caucus")
        #expect(short.port == 5432)
        #expect(short.password == nil)
        #expect(short.sslMode == .prefer)

        for bad in ["postgres://127.0.0.1/caucus", "postgres://ada@127.0.0.1", "mysql://ada@h/db", "postgres://ada@h/db?sslmode=maybe"] {
            let error = #expect(throws: StoreError.self, "\(bad)") { try PostgresStoreLocation(url: bad) }
            #expect(error?.code == .cannotOpen)
        }
    }

    @Test func severalStoresPreparingOneDatabaseAtOnceMakeOneSchema() async throws {
        let database = try await StoreKind.postgres.freshDatabase()
        let stores = try await withThrowingTaskGroup(of: TestStore.self) { group in
            for _ in 0..<4 { group.addTask { try await database.open() } }
            return try await group.reduce(into: [TestStore]()) { $0.append($1) }
        }
        let store = try #require(stores.first?.store as? PostgresSessionStore)
        #expect(try await store.schemaVersion() == PostgresSchema.version)
        for opened in stores { await opened.close() }
    }

    @Test func aDatabaseFromANewerSchemaIsRefused() async throws {
        let database = try await StoreKind.postgres.freshDatabase()
        let opened = try await database.open()
        let store = try #require(opened.store as? PostgresSessionStore)
        try await store.execute("UPDATE caucus_schema SET version = version + 1")
        await opened.close()
        let error = await #expect(throws: StoreError.self) { try await database.open() }
        #expect(error?.code == .unsupportedSchema)
    }

    /// On PostgreSQL every commit waits for the disk, whatever the sync policy: the database
    /// may crash on its own, and what a client was told must outlive it (issue 42).
    @Test(arguments: [SyncPolicy.messages, .everyCommit])
    func everyCommitWaitsForTheDiskWhateverThePolicy(policy: SyncPolicy) async throws {
        let database = try await StoreKind.postgres.freshDatabase()
        let opened = try await database.open(syncPolicy: policy)
        let store = try #require(opened.store as? PostgresSessionStore)
        var script = SessionScript()
        let (host, join) = try script.join("Ada", claim: .host)
        let id = try await store.start(script, firstBatch: join)
        #expect(await store.lastCommitSynchronous == "on", "a join")
        let (_, second) = try script.join("Bo", claim: .participant)
        try await store.append(second, to: id)
        #expect(await store.lastCommitSynchronous == "on", "a second join")
        try await store.append(try script.run(.chat("hello", to: .room), by: host), to: id)
        #expect(await store.lastCommitSynchronous == "on", "a chat message")
        await opened.close()
    }
}
