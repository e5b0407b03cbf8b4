import CaucusCore
import CaucusStore
import Testing

/// `NodeLease`'s and `SessionLease`'s rules, driven directly: what both stores apply under
/// their locks.
@Suite("Lease rules")
struct LeaseRulesTests {
    let a = NodeID("node-a")
    let b = NodeID("node-b")
    let session = StoredSessionID(rawValue: 7)
    let start = Instant.testEpoch

    func at(_ seconds: Int) -> Instant { start.adding(seconds: seconds) }

    @Test func aNodesRunsTakeConsecutiveEpochsAndOnlyTheCurrentRunRenews() throws {
        let first = NodeLease.started(by: a, after: nil, until: at(10))
        #expect(first.owner == NodeIncarnation(node: a, epoch: .first))
        let second = NodeLease.started(by: a, after: first, until: at(12))
        #expect(second.epoch == NodeEpoch.first.next)
        // Late (expired at 10), the current run renews; the previous one is refused.
        #expect(try second.renewed(epoch: second.epoch, until: at(30)) == NodeLease(owner: second.owner, expiresAt: at(30)))
        let refused = #expect(throws: StoreError.self) { _ = try second.renewed(epoch: first.epoch, until: at(30)) }
        #expect(refused?.code == .fenced)
        // A release by the previous run changes nothing; by the current one it ends the lease now.
        #expect(second.released(epoch: first.epoch, at: at(5)) == second)
        #expect(second.released(epoch: second.epoch, at: at(5)) == NodeLease(owner: second.owner, expiresAt: at(5)))
        #expect(second.released(epoch: second.epoch, at: at(20)) == second, "a release never lengthens a lease")
    }

    @Test func aSessionIsLiveWhileItsOwnersLeaseIsAtTheEpochItNames() {
        let run = NodeLease.started(by: a, after: nil, until: at(10))
        let lease = SessionLease(owner: run.owner, epoch: LeaseEpoch(rawValue: 1))
        #expect(lease.isLive(ownerLease: run, at: at(9)))
        #expect(!lease.isLive(ownerLease: run, at: at(10)))
        #expect(!lease.isLive(ownerLease: nil, at: at(9)))
        #expect(!lease.isLive(ownerLease: NodeLease.started(by: a, after: run, until: at(10)), at: at(9)), "a later run does not keep it")
        #expect(!SessionLease.never.isLive(ownerLease: run, at: at(0)))
    }

    @Test func acquiringTakesTheNextEpochUnlessTheOwnerStillHoldsIt() throws {
        let runA = NodeLease.started(by: a, after: nil, until: at(10))
        let runB = NodeLease.started(by: b, after: nil, until: at(20))
        let leased = try SessionLease.never.acquired(by: runA.owner, ownerLease: nil, now: at(0), of: session)
        #expect(leased == SessionLease(owner: runA.owner, epoch: LeaseEpoch(rawValue: 1)))
        #expect(try leased.acquired(by: runA.owner, ownerLease: runA, now: at(5), of: session) == leased, "its owner keeps the epoch")
        let held = #expect(throws: StoreError.self) { _ = try leased.acquired(by: runB.owner, ownerLease: runA, now: at(9), of: session) }
        #expect(held?.code == .leaseHeld)
        #expect(try leased.acquired(by: runB.owner, ownerLease: runA, now: at(10), of: session) == SessionLease(owner: runB.owner, epoch: LeaseEpoch(rawValue: 2)))
        // The owner's own next run takes it at the next epoch too: it fences the previous run.
        let restarted = NodeLease.started(by: a, after: runA, until: at(30))
        #expect(try leased.acquired(by: restarted.owner, ownerLease: restarted, now: at(1), of: session).epoch == LeaseEpoch(rawValue: 2))
    }

    @Test func aGoneOwnersLiveLeaseIsTakenAtTheNextEpoch() throws {
        let runA = NodeLease.started(by: a, after: nil, until: at(10))
        let runB = NodeLease.started(by: b, after: nil, until: at(10))
        let leased = SessionLease(owner: runA.owner, epoch: LeaseEpoch(rawValue: 4))
        #expect(try leased.takenFromGone(by: runB.owner, ownerLease: runA, now: at(1), of: session) == SessionLease(owner: runB.owner, epoch: LeaseEpoch(rawValue: 5)))
        // Its own node is never "gone" to itself: the live lease is kept.
        #expect(try leased.takenFromGone(by: runA.owner, ownerLease: runA, now: at(1), of: session) == leased)
    }

    @Test func aWriteLandsOnlyAtTheCurrentEpoch() throws {
        let leased = SessionLease(owner: NodeIncarnation(node: a, epoch: .first), epoch: LeaseEpoch(rawValue: 2))
        try leased.checkWrite(claimed: LeaseEpoch(rawValue: 2), to: session)
        for claimed in [nil, LeaseEpoch(rawValue: 1), LeaseEpoch(rawValue: 3)] {
            let fenced = #expect(throws: StoreError.self) { try leased.checkWrite(claimed: claimed, to: session) }
            #expect(fenced?.code == .fenced)
        }
        try SessionLease.never.checkWrite(claimed: nil, to: session)
    }
}
