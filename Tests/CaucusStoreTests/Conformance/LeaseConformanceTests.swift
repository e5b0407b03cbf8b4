import CaucusCore
import CaucusStore
import Testing

/// A session's lease and the fencing of writes by its epoch, on every store. Two stores on one
/// database stand for two nodes; time is passed in, so expiry is decided by the test.
@Suite("Conformance: leases and fencing")
struct LeaseConformanceTests {
    private let nodeA = NodeID("node-a")
    private let nodeB = NodeID("node-b")
    private let start = Instant.testEpoch

    private func at(_ seconds: Int) -> Instant { start.adding(seconds: seconds) }

    /// A session opened (without a lease, as an opening append is) with a host's join.
    private func opened(on store: any SessionStore) async throws -> (StoredSessionID, SessionScript, host: UserID) {
        var script = SessionScript()
        let (host, join) = try script.join("Ada", claim: .host)
        return (try await store.start(script, firstBatch: join), script, host)
    }

    @Test(arguments: StoreKind.allCases)
    func aNodeThatLostItsLeaseCannotWriteAndTheNewHolderCan(kind: StoreKind) async throws {
        let database = try await kind.freshDatabase()
        let a = try await database.open()
        let b = try await database.open()
        var (id, script, host) = try await opened(on: a.store)

        let first = try await a.store.acquireLease(of: id, for: nodeA, until: at(10), now: at(0))
        #expect(first == LeaseEpoch(rawValue: 1))
        try await a.store.append(try script.run(.chat("from A", to: .room), by: host), to: id, opening: nil, lease: first)

        // Before A's lease expires, B cannot take it; at its expiry it can, with the next epoch.
        let refused1 = await #expect(throws: StoreError.self) { _ = try await b.store.acquireLease(of: id, for: nodeB, until: at(20), now: at(9)) }
        #expect(refused1?.code == .leaseHeld)
        let second = try await b.store.acquireLease(of: id, for: nodeB, until: at(20), now: at(10))
        #expect(second == LeaseEpoch(rawValue: 2))

        // A wakes up believing it holds epoch 1: nothing it writes lands.
        let logged = script.log
        var stale = script
        let staleBatch = try stale.run(.chat("from A, too late", to: .room), by: host)
        let refused2 = await #expect(throws: StoreError.self) { try await a.store.append(staleBatch, to: id, opening: nil, lease: first) }
        #expect(refused2?.code == .fenced)
        let refused3 = await #expect(throws: StoreError.self) { try await a.store.append(staleBatch, to: id) }
        #expect(refused3?.code == .fenced, "nor without a lease")
        let snapshot = StoredSnapshot(seq: logged.count, state: script.state)
        let refused4 = await #expect(throws: StoreError.self) { try await a.store.saveSnapshot(snapshot, of: id, lease: first) }
        #expect(refused4?.code == .fenced)
        let refused5 = await #expect(throws: StoreError.self) { try await a.store.renewLease(of: id, for: nodeA, epoch: first, until: at(30), now: at(11)) }
        #expect(refused5?.code == .fenced)
        #expect(try await a.store.events(of: id, after: 0) == logged)
        #expect(try await b.store.events(of: id, after: 0) == logged)
        #expect(try await b.store.liveSessions().map(\.snapshot) == [nil])

        // B writes at epoch 2, renews, and A sees B's log.
        try await b.store.append(try script.run(.chat("from B", to: .room), by: host), to: id, opening: nil, lease: second)
        try await b.store.saveSnapshot(StoredSnapshot(seq: script.log.count, state: script.state), of: id, lease: second)
        try await b.store.renewLease(of: id, for: nodeB, epoch: second, until: at(25), now: at(15))
        #expect(try await a.store.events(of: id, after: 0) == script.log)

        // The renewal holds A off until the new expiry; then A takes it back, at epoch 3.
        let refused6 = await #expect(throws: StoreError.self) { _ = try await a.store.acquireLease(of: id, for: nodeA, until: at(35), now: at(24)) }
        #expect(refused6?.code == .leaseHeld)
        let third = try await a.store.acquireLease(of: id, for: nodeA, until: at(35), now: at(25))
        #expect(third == LeaseEpoch(rawValue: 3))
        let bLate = try script.run(.chat("from B, too late", to: .room), by: host)
        let refused7 = await #expect(throws: StoreError.self) { try await b.store.append(bLate, to: id, opening: nil, lease: second) }
        #expect(refused7?.code == .fenced)
        #expect(try await b.store.lease(of: id) == SessionLease(holder: nodeA, epoch: third, expiresAt: at(35)))
        #expect(try await a.store.events(of: id, after: 0) == Array(script.log.dropLast()))
        await a.close()
        await b.close()
    }

    @Test(arguments: StoreKind.allCases)
    func writesWithoutALeaseWorkUntilOneIsTakenAndAreFencedAfter(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            var (id, script, host) = try await opened(on: store)
            #expect(try await store.lease(of: id) == .never)
            // Today's single-node behaviour: no lease anywhere.
            try await store.append(try script.run(.chat("unleased", to: .room), by: host), to: id)
            try await store.saveSnapshot(StoredSnapshot(seq: script.log.count, state: script.state), of: id)

            let epoch = try await store.acquireLease(of: id, for: nodeA, until: at(10), now: at(0))
            let logged = script.log
            let unleased = try script.run(.chat("unleased, after a lease exists", to: .room), by: host)
            let refused8 = await #expect(throws: StoreError.self) { try await store.append(unleased, to: id) }
            #expect(refused8?.code == .fenced)
            let refused9 = await #expect(throws: StoreError.self) { try await store.saveSnapshot(StoredSnapshot(seq: logged.count, state: script.state), of: id) }
            #expect(refused9?.code == .fenced)
            let refused10 = await #expect(throws: StoreError.self) { try await store.append(unleased, to: id, opening: nil, lease: epoch.next) }
            #expect(refused10?.code == .fenced, "nor a future epoch")
            #expect(try await store.events(of: id, after: 0) == logged)
            // The holder writes the same batch with its epoch, even after expiry while nobody took it over.
            try await store.append(unleased, to: id, opening: nil, lease: epoch)
            #expect(try await store.events(of: id, after: 0) == script.log)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func theHolderReacquiringItsLiveLeaseKeepsTheEpochAndAnExpiredOneTakesTheNext(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            let (id, _, _) = try await opened(on: store)
            let epoch = try await store.acquireLease(of: id, for: nodeA, until: at(10), now: at(0))
            #expect(try await store.acquireLease(of: id, for: nodeA, until: at(20), now: at(5)) == epoch)
            #expect(try await store.lease(of: id) == SessionLease(holder: nodeA, epoch: epoch, expiresAt: at(20)))
            // Renewing is for a live lease only: once expired, the lease is acquired again.
            let refused11 = await #expect(throws: StoreError.self) { try await store.renewLease(of: id, for: nodeA, epoch: epoch, until: at(40), now: at(20)) }
            #expect(refused11?.code == .fenced)
            let refused12 = await #expect(throws: StoreError.self) { try await store.renewLease(of: id, for: nodeB, epoch: epoch, until: at(40), now: at(19)) }
            #expect(refused12?.code == .fenced)
            #expect(try await store.acquireLease(of: id, for: nodeA, until: at(40), now: at(20)) == epoch.next)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func onlyALiveLoggedSessionHasALeaseAndAnOpeningCarriesNone(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            let reserved = try await store.reserveSessionID()
            let refused13 = await #expect(throws: StoreError.self) { _ = try await store.acquireLease(of: reserved, for: nodeA, until: at(10), now: at(0)) }
            #expect(refused13?.code == .unknownSession)
            var script = SessionScript()
            let (host, join) = try script.join("Ada", claim: .host)
            let opening = SessionOpening(app: "demo", name: script.name, createdAt: join[0].at)
            let claimed = await #expect(throws: StoreError.self) {
                try await store.append(join, to: reserved, opening: opening, lease: LeaseEpoch(rawValue: 1))
            }
            #expect(claimed?.code == .fenced)
            #expect(try await store.liveSessions().isEmpty, "the refused opening wrote nothing")

            try await store.append(join, to: reserved, opening: opening)
            let epoch = try await store.acquireLease(of: reserved, for: nodeA, until: at(10), now: at(0))
            try await store.append(try script.run(.endSession, by: host), to: reserved, opening: nil, lease: epoch)
            let refused14 = await #expect(throws: StoreError.self) { _ = try await store.acquireLease(of: reserved, for: nodeB, until: at(30), now: at(20)) }
            #expect(refused14?.code == .sessionEnded)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anOpeningThatCarriesALeaseWritesTheRowLeasedAtTheFirstEpoch(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            let id = try await store.reserveSessionID()
            var script = SessionScript()
            let (host, join) = try script.join("Ada", claim: .host)
            let opening = SessionOpening(app: "demo", name: script.name, createdAt: join[0].at, lease: OpeningLease(holder: nodeA, until: at(10)))
            try await store.append(join, to: id, opening: opening)
            #expect(try await store.lease(of: id) == SessionLease(holder: nodeA, epoch: LeaseEpoch(rawValue: 1), expiresAt: at(10)))
            // No moment without a lease: another node cannot take the session while it is live.
            let held = await #expect(throws: StoreError.self) { _ = try await store.acquireLease(of: id, for: nodeB, until: at(20), now: at(5)) }
            #expect(held?.code == .leaseHeld)
            // Its writes carry epoch 1; one without a lease is fenced.
            let chat = try script.run(.chat("hi", to: .room), by: host)
            let unleased = await #expect(throws: StoreError.self) { try await store.append(chat, to: id, opening: nil, lease: nil) }
            #expect(unleased?.code == .fenced)
            try await store.append(chat, to: id, opening: nil, lease: LeaseEpoch(rawValue: 1))
            #expect(try await store.events(of: id, after: 0).count == join.count + chat.count)
        }
    }
}
