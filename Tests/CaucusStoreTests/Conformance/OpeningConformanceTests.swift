import CaucusCore
import CaucusStore
import Testing

/// A session exists in the store from its first append on, and the database keeps one live
/// session per app and name, on every store.
@Suite("Conformance: opening a session")
struct OpeningConformanceTests {
    @Test(arguments: StoreKind.allCases)
    func aReservedIdLeavesNoRowUntilTheFirstAppend(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            // What a refused first join leaves: an id, and nothing in the database.
            let refused = try await store.reserveSessionID()
            #expect(try await store.liveSessions().isEmpty)
            #expect(try await store.history(app: "demo", limit: 10).isEmpty)
            let read = await #expect(throws: StoreError.self) { try await store.events(of: refused, after: 0) }
            #expect(read?.code == .unknownSession)

            // Ids are never handed out twice, reserved or used.
            var script = SessionScript()
            let id = try await store.start(script, firstBatch: try script.join("Ada", claim: .host).1)
            #expect(id > refused)
            #expect(try await store.reserveSessionID() > id)
            #expect(try await store.liveSessions().map(\.id) == [id])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func onlyTheFirstBatchOpensAndItMustOpen(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            var script = SessionScript()
            let (host, join) = try script.join("Ada", claim: .host)
            let unopened = try await store.reserveSessionID()
            let withoutOpening = await #expect(throws: StoreError.self) { try await store.append(join, to: unopened) }
            #expect(withoutOpening?.code == .unknownSession)

            let id = try await store.start(script, firstBatch: join)
            let opening = SessionOpening(app: "demo", name: "Other", createdAt: .testEpoch)
            let again = await #expect(throws: StoreError.self) { try await store.append(join, to: id, opening: opening) }
            #expect(again?.code == .duplicateSeq)
            let late = await #expect(throws: StoreError.self) {
                try await store.append(try script.run(.chat("hi", to: .room), by: host), to: id, opening: opening)
            }
            #expect(late?.code == .outOfOrder)
            #expect(try await store.liveSessions().map(\.events) == [join])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func oneLiveSessionPerAppAndNameWhateverTheCase(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            var first = SessionScript(name: "Algebra")
            let (host, join) = try first.join("Ada", claim: .host)
            let id = try await store.start(first, firstBatch: join)

            // The same name in another case is the same session: the database refuses a second.
            var second = SessionScript(name: "ALGEBRA")
            let secondJoin = try second.join("Bob", claim: .host).1
            let taken = await #expect(throws: StoreError.self) { try await store.start(second, firstBatch: secondJoin) }
            #expect(taken?.code == .liveNameTaken)
            #expect(try await store.liveSessions().map(\.id) == [id], "nothing of the refused session was written")

            // Another app may use the name.
            _ = try await store.start(app: "other", second, firstBatch: secondJoin)

            // Once the session ends, its name is free again.
            try await store.append(try first.run(.endSession, by: host), to: id)
            let reuse = try await store.start(second, firstBatch: secondJoin)
            #expect(try await store.liveSessions().map(\.id).contains(reuse))
        }
    }
}
