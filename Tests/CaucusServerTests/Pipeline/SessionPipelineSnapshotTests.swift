import CaucusCore
import CaucusProtocol
import CaucusStore
import Testing

@testable import CaucusServer

/// The pipeline hands the store a snapshot of the whole state every `snapshotInterval` events,
/// with the batch whose last event it is the state at, and one at shutdown; a session restored
/// from a snapshot and the events after it is the session the whole log restores.
@Suite struct SessionPipelineSnapshotTests {
    @Test func aSnapshotComesWithTheBatchThatCrossesTheIntervalAndIsTheStateAtItsEnd() throws {
        var h = PipelineHarness(snapshotInterval: 4)
        let ann = try h.join("Ann", claim: .host)
        h.settle()
        for index in 1...10 {
            try h.perform(.chat("message \(index)", to: .room), by: ann.user)
            h.settle()
        }
        #expect(h.violations.isEmpty, "\(h.violations)")
        #expect(!h.snapshots.isEmpty)
        var previous = 0
        for snapshot in h.snapshots {
            #expect(snapshot.seq - previous >= 4, "no sooner than the interval: \(h.snapshots.map(\.seq))")
            previous = snapshot.seq
            let replayed = SessionState(limits: PipelineHarness.limits, replaying: h.stored.prefix(snapshot.seq).map(\.event))
            #expect(snapshot.state == replayed, "the state at \(snapshot.seq)")
        }
        #expect(h.stored.count - previous < 4, "and no later either")
    }

    @Test func noSnapshotsWhenTheIntervalIsZero() throws {
        var h = PipelineHarness()
        let ann = try h.join("Ann", claim: .host)
        for index in 1...20 { try h.perform(.chat("message \(index)", to: .room), by: ann.user) }
        h.settle()
        #expect(h.snapshots.isEmpty)
        let atShutdown = h.pipeline.snapshotAtShutdown()
        #expect(atShutdown == nil)
    }

    @Test func atShutdownASnapshotOfEverythingStoredAndOnlyThen() throws {
        var h = PipelineHarness(snapshotInterval: 1_000)
        let ann = try h.join("Ann", claim: .host)
        try h.perform(.chat("pending", to: .room), by: ann.user)
        #expect(h.storeCall != nil)
        let whileStoring = h.pipeline.snapshotAtShutdown()
        #expect(whileStoring == nil, "not while a batch is being stored")
        h.settle()
        let stored = h.pipeline.snapshotAtShutdown()
        let snapshot = try #require(stored)
        #expect(snapshot.seq == h.stored.count)
        #expect(snapshot.state == h.pipeline.state)
        let again = h.pipeline.snapshotAtShutdown()
        #expect(again == nil, "the latest is current")
    }

    @Test func aSessionRestoredFromASnapshotAndItsTailIsTheOneTheWholeLogRestores() throws {
        var h = PipelineHarness(snapshotInterval: 3)
        let ann = try h.join("Ann", claim: .host)
        let bob = try h.join("Bob")
        h.settle()
        for index in 1...8 {
            try h.perform(.chat("message \(index)", to: .room), by: index.isMultiple(of: 2) ? ann.user : bob.user)
            h.settle()
        }
        let snapshot = try #require(h.snapshots.last)
        var fromSnapshot = PipelineHarness(replayWindow: 2)
        fromSnapshot.pipeline.restore(Array(h.stored.dropFirst(snapshot.seq)), from: snapshot)
        var fromLog = PipelineHarness(replayWindow: 2)
        fromLog.pipeline.restore(h.stored)
        #expect(fromSnapshot.pipeline.state == fromLog.pipeline.state)
        #expect(fromSnapshot.pipeline.seq == h.stored.count)
        #expect(fromSnapshot.pipeline.durableSeq == h.stored.count)

        // Both go on alike: seats held after the restart, numbered after the log.
        fromSnapshot.run(fromSnapshot.pipeline.holdSeatsAfterRestart(at: h.now))
        fromSnapshot.settle()
        fromLog.run(fromLog.pipeline.holdSeatsAfterRestart(at: h.now))
        fromLog.settle()
        #expect(fromSnapshot.stored == fromLog.stored)
        #expect(fromSnapshot.stored.first?.seq == h.stored.count + 1)
        // A user who saw the whole log resumes with a replay; one behind the window, with a snapshot.
        let current = try fromSnapshot.resume(ann.user, after: h.stored.count)
        #expect(fromSnapshot.replies(current).contains { if case .resumed(_, let from?, nil, _, _) = $0 { from == h.stored.count + 1 } else { false } })
        let behind = try fromSnapshot.resume(bob.user, after: 1)
        // The snapshot goes out once Ann's return, which it includes, is stored.
        fromSnapshot.settle()
        #expect(fromSnapshot.replies(behind).contains { if case .resumed(_, nil, _?, _, _) = $0 { true } else { false } })
        #expect(fromSnapshot.violations.isEmpty, "\(fromSnapshot.violations)")
    }
}
