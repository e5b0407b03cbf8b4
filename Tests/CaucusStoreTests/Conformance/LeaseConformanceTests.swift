import CaucusCore
import CaucusStore
import Testing

/// Node leases, sessions' leases and the fencing of writes by a session's epoch, on every
/// store. Two stores on one database stand for two nodes; time is passed in, so expiry is
/// decided by the test.
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

    /// A session opened leased to `owner` from its first write, as a node opens one.
    private func opened(on store: any SessionStore, leasedTo owner: NodeIncarnation, name: String) async throws -> (StoredSessionID, SessionScript, host: UserID) {
        var script = SessionScript(name: name)
        let (host, join) = try script.join("Ada", claim: .host)
        let id = try await store.reserveSessionID()
        try await store.append(join, to: id, opening: SessionOpening(app: "demo", name: name, createdAt: join[0].at, lease: OpeningLease(owner: owner)))
        return (id, script, host)
    }

    @Test(arguments: StoreKind.allCases)
    func aNodeThatLostItsLeaseCannotWriteAndTheNewHolderCan(kind: StoreKind) async throws {
        let database = try await kind.freshDatabase()
        let a = try await database.open()
        let b = try await database.open()
        var (id, script, host) = try await opened(on: a.store)
        let runA = try await a.store.startNodeLease(for: nodeA, until: at(10)).owner
        let runB = try await b.store.startNodeLease(for: nodeB, until: at(20)).owner

        let first = try await a.store.acquireLease(of: id, for: runA, now: at(0))
        #expect(first == LeaseEpoch(rawValue: 1))
        try await a.store.append(try script.run(.chat("from A", to: .room), by: host), to: id, opening: nil, lease: first)

        // Before A's node lease expires, B cannot take the session; at its expiry it can, with
        // the next epoch.
        let refused1 = await #expect(throws: StoreError.self) { _ = try await b.store.acquireLease(of: id, for: runB, now: at(9)) }
        #expect(refused1?.code == .leaseHeld)
        let second = try await b.store.acquireLease(of: id, for: runB, now: at(10))
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
        // Its late renewal succeeds (nobody started A again) but no longer finds the session.
        #expect(try await a.store.renewNodeLease(runA, until: at(21)) == [:])
        #expect(try await a.store.events(of: id, after: 0) == logged)
        #expect(try await b.store.events(of: id, after: 0) == logged)
        #expect(try await b.store.liveSessions().map(\.snapshot) == [nil])

        // B writes at epoch 2, renews, and A sees B's log.
        try await b.store.append(try script.run(.chat("from B", to: .room), by: host), to: id, opening: nil, lease: second)
        try await b.store.saveSnapshot(StoredSnapshot(seq: script.log.count, state: script.state), of: id, lease: second)
        #expect(try await b.store.renewNodeLease(runB, until: at(25)) == [id: second])
        #expect(try await a.store.events(of: id, after: 0) == script.log)

        // B's renewal holds A off until the new expiry; then A takes it back, at epoch 3.
        let refused6 = await #expect(throws: StoreError.self) { _ = try await a.store.acquireLease(of: id, for: runA, now: at(24)) }
        #expect(refused6?.code == .leaseHeld)
        let third = try await a.store.acquireLease(of: id, for: runA, now: at(25))
        #expect(third == LeaseEpoch(rawValue: 3))
        let bLate = try script.run(.chat("from B, too late", to: .room), by: host)
        let refused7 = await #expect(throws: StoreError.self) { try await b.store.append(bLate, to: id, opening: nil, lease: second) }
        #expect(refused7?.code == .fenced)
        let state = try await b.store.lease(of: id)
        #expect(state.lease == SessionLease(owner: runA, epoch: third))
        #expect(state.ownerLease == NodeLease(owner: runA, expiresAt: at(21)))
        #expect(state.isLive(at: at(20)) && !state.isLive(at: at(21)))
        #expect(try await a.store.events(of: id, after: 0) == Array(script.log.dropLast()))
        await a.close()
        await b.close()
    }

    @Test(arguments: StoreKind.allCases)
    func writesWithoutALeaseWorkUntilOneIsTakenAndAreFencedAfter(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            var (id, script, host) = try await opened(on: store)
            #expect(try await store.lease(of: id) == SessionLeaseState(lease: .never, ownerLease: nil))
            // Today's single-node behaviour: no lease anywhere.
            try await store.append(try script.run(.chat("unleased", to: .room), by: host), to: id)
            try await store.saveSnapshot(StoredSnapshot(seq: script.log.count, state: script.state), of: id)

            let run = try await store.startNodeLease(for: nodeA, until: at(10)).owner
            let epoch = try await store.acquireLease(of: id, for: run, now: at(0))
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
            let run = try await store.startNodeLease(for: nodeA, until: at(10)).owner
            let epoch = try await store.acquireLease(of: id, for: run, now: at(0))
            #expect(try await store.acquireLease(of: id, for: run, now: at(5)) == epoch)
            #expect(try await store.renewNodeLease(run, until: at(20)) == [id: epoch])
            #expect(try await store.lease(of: id) == SessionLeaseState(lease: SessionLease(owner: run, epoch: epoch), ownerLease: NodeLease(owner: run, expiresAt: at(20))))
            // Expired, the lease is acquired again at the next epoch, even by its owner.
            #expect(try await store.acquireLease(of: id, for: run, now: at(20)) == epoch.next)
        }
    }

    /// The busy node: a renewal after the node's lease ran out in the database, which
    /// no other node overtook, keeps every session at its epoch (the old per-session renewal
    /// refused it as fenced, and the sessions moved).
    @Test(arguments: StoreKind.allCases)
    func aLateNodeRenewalThatNobodyOvertookKeepsEverySession(kind: StoreKind) async throws {
        let database = try await kind.freshDatabase()
        let a = try await database.open()
        let b = try await database.open()
        let runA = try await a.store.startNodeLease(for: nodeA, until: at(10)).owner
        let runB = try await b.store.startNodeLease(for: nodeB, until: at(100)).owner
        var sessions: [(StoredSessionID, SessionScript, UserID)] = []
        for index in 0..<3 { sessions.append(try await opened(on: a.store, leasedTo: runA, name: "Room \(index)")) }

        // At 15 A's lease has run out by 5 s; nobody took anything. A renews.
        let owned = try await a.store.renewNodeLease(runA, until: at(25))
        #expect(owned == Dictionary(uniqueKeysWithValues: sessions.map { ($0.0, LeaseEpoch(rawValue: 1)) }))
        for (id, script, host) in sessions {
            var script = script
            try await a.store.append(try script.run(.chat("still here", to: .room), by: host), to: id, opening: nil, lease: LeaseEpoch(rawValue: 1))
            let held = await #expect(throws: StoreError.self) { _ = try await b.store.acquireLease(of: id, for: runB, now: at(16)) }
            #expect(held?.code == .leaseHeld, "live again: B cannot take it")
            #expect(try await b.store.lease(of: id).isLive(at: at(16)))
        }
        await a.close()
        await b.close()
    }

    /// A node frozen past its lease: another node takes one of its sessions; the frozen node's
    /// late renewal succeeds for the rest and tells it which one it lost, whose writes are
    /// fenced.
    @Test(arguments: StoreKind.allCases)
    func aLateRenewalNamesTheSessionsAnotherNodeTookMeanwhile(kind: StoreKind) async throws {
        let database = try await kind.freshDatabase()
        let a = try await database.open()
        let b = try await database.open()
        let runA = try await a.store.startNodeLease(for: nodeA, until: at(10)).owner
        let runB = try await b.store.startNodeLease(for: nodeB, until: at(100)).owner
        var (taken, takenScript, takenHost) = try await opened(on: a.store, leasedTo: runA, name: "Taken")
        var (kept, keptScript, keptHost) = try await opened(on: a.store, leasedTo: runA, name: "Kept")

        let second = try await b.store.acquireLease(of: taken, for: runB, now: at(12))
        #expect(second == LeaseEpoch(rawValue: 2))
        #expect(try await a.store.renewNodeLease(runA, until: at(23)) == [kept: LeaseEpoch(rawValue: 1)])
        let fenced = await #expect(throws: StoreError.self) {
            try await a.store.append(try takenScript.run(.chat("too late", to: .room), by: takenHost), to: taken, opening: nil, lease: LeaseEpoch(rawValue: 1))
        }
        #expect(fenced?.code == .fenced)
        try await a.store.append(try keptScript.run(.chat("still mine", to: .room), by: keptHost), to: kept, opening: nil, lease: LeaseEpoch(rawValue: 1))
        #expect(try await b.store.renewNodeLease(runB, until: at(110)) == [taken: second])
        await a.close()
        await b.close()
    }

    /// A node's new run (a restart) ends its previous run: the old run's sessions are no
    /// longer live and its renewal is refused; the new run takes them at the next epoch.
    @Test(arguments: StoreKind.allCases)
    func aNewRunOfANodeEndsItsPreviousRunsLeases(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            let old = try await store.startNodeLease(for: nodeA, until: at(10)).owner
            let (id, _, _) = try await opened(on: store, leasedTo: old, name: "Maths")
            #expect(try await store.lease(of: id).isLive(at: at(1)))
            let new = try await store.startNodeLease(for: nodeA, until: at(11)).owner
            #expect(new.epoch == old.epoch.next)
            #expect(try await !store.lease(of: id).isLive(at: at(1)), "the old run's lease ended with it")
            let refused = await #expect(throws: StoreError.self) { _ = try await store.renewNodeLease(old, until: at(20)) }
            #expect(refused?.code == .fenced)
            #expect(try await store.renewNodeLease(new, until: at(21)) == [:])
            #expect(try await store.acquireLease(of: id, for: new, now: at(2)) == LeaseEpoch(rawValue: 2))
            // A stopping run releases its lease: its sessions are free at once; an older run's
            // release changes nothing.
            try await store.releaseNodeLease(old, at: at(3))
            #expect(try await store.lease(of: id).isLive(at: at(3)))
            try await store.releaseNodeLease(new, at: at(3))
            #expect(try await !store.lease(of: id).isLive(at: at(3)))
            #expect(try await store.nodeLease(of: nodeA) == NodeLease(owner: new, expiresAt: at(3)))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func onlyALiveLoggedSessionHasALeaseAndAnOpeningCarriesNone(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            let runA = try await store.startNodeLease(for: nodeA, until: at(10)).owner
            let runB = try await store.startNodeLease(for: nodeB, until: at(30)).owner
            let reserved = try await store.reserveSessionID()
            let refused13 = await #expect(throws: StoreError.self) { _ = try await store.acquireLease(of: reserved, for: runA, now: at(0)) }
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
            let epoch = try await store.acquireLease(of: reserved, for: runA, now: at(0))
            try await store.append(try script.run(.endSession, by: host), to: reserved, opening: nil, lease: epoch)
            let refused14 = await #expect(throws: StoreError.self) { _ = try await store.acquireLease(of: reserved, for: runB, now: at(20)) }
            #expect(refused14?.code == .sessionEnded)
            #expect(try await store.renewNodeLease(runA, until: at(40)) == [:], "an ended session is owned by nobody")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anOpeningThatCarriesALeaseWritesTheRowLeasedAtTheFirstEpoch(kind: StoreKind) async throws {
        try await kind.freshDatabase().with { store in
            let runA = try await store.startNodeLease(for: nodeA, until: at(10)).owner
            let runB = try await store.startNodeLease(for: nodeB, until: at(10)).owner
            var (id, script, host) = try await opened(on: store, leasedTo: runA, name: "Maths")
            #expect(try await store.lease(of: id).lease == SessionLease(owner: runA, epoch: LeaseEpoch(rawValue: 1)))
            // No moment without a lease: another node cannot take the session while it is live.
            let held = await #expect(throws: StoreError.self) { _ = try await store.acquireLease(of: id, for: runB, now: at(5)) }
            #expect(held?.code == .leaseHeld)
            // Its writes carry epoch 1; one without a lease is fenced.
            let chat = try script.run(.chat("hi", to: .room), by: host)
            let unleased = await #expect(throws: StoreError.self) { try await store.append(chat, to: id, opening: nil, lease: nil) }
            #expect(unleased?.code == .fenced)
            try await store.append(chat, to: id, opening: nil, lease: LeaseEpoch(rawValue: 1))
            #expect(try await store.events(of: id, after: 0).count == script.log.count)
        }
    }
}
