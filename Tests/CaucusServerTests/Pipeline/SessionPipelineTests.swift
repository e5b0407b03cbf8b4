import CaucusCore
import CaucusProtocol
import Testing

@testable import CaucusServer

/// The session pipeline driven directly: inputs in, actions out, no sockets and no sleeps.
@Suite struct SessionPipelineTests {
    @Test func nothingReachesAnyoneBeforeTheStoreHasIt() throws {
        var h = PipelineHarness()
        let ann = try h.join("Ann", claim: .host)
        #expect(h.storeCall?.count == 2, "sessionStarted and userJoined in one batch")
        #expect(h.inbox.isEmpty)
        h.storeSucceeds()
        guard case .joined(let user, let secret, let snapshot, _)? = h.replies(ann.connection).first else {
            Issue.record("no joined reply: \(h.inbox)")
            return
        }
        #expect(user == ann.user && secret == "secret-\(ann.user.rawValue)" && snapshot.seq == 2)
        #expect(h.eventSeqs(ann.connection).isEmpty, "the snapshot already includes the join")
        #expect(h.violations.isEmpty, "\(h.violations)")
    }

    @Test func commandsArrivingDuringAStoreWriteGoInTheNextBatchTogether() throws {
        var h = PipelineHarness()
        let ann = try h.join("Ann", claim: .host)
        try h.perform(.chat("one", to: .room), by: ann.user, from: ann.connection)
        try h.perform(.chat("two", to: .room), by: ann.user, from: ann.connection, requestID: 10)
        #expect(h.storeCall?.map(\.seq) == [1, 2], "the first batch is with the store")
        h.storeSucceeds()
        #expect(h.storeCall?.map(\.seq) == [3, 4], "both chats in the next")
        h.storeSucceeds()
        #expect(h.storeCall == nil)
        #expect(h.eventSeqs(ann.connection) == [3, 4])
        // Each reply right after its own command's last event.
        let kinds = h.inbox[ann.connection]!.map { frame -> String in
            switch frame {
            case .event(let event): "e\(event.seq)"
            case .reply(let re, _): "r\(re)"
            case .error, .unknownEvent, .mediaSlots: "other"
            }
        }
        #expect(kinds == ["r1", "e3", "r9", "e4", "r10"])
        #expect(h.violations.isEmpty, "\(h.violations)")
    }

    @Test func aCallerWaitsForDurabilityUnderATicket() throws {
        var h = PipelineHarness()
        let ann = try h.join("Ann", claim: .host)
        guard case .wait(let ticket) = h.pipeline.awaitDurable(2) else { Issue.record("should wait"); return }
        h.storeSucceeds()
        #expect(h.completed[ticket] == .some(nil))
        #expect(h.pipeline.awaitDurable(2) == .durable)
        _ = ann
    }

    @Test func aRefusedBatchBreaksTheSessionAndEveryWaiterHearsOfIt() throws {
        var h = PipelineHarness()
        let ann = try h.join("Ann", claim: .host)
        h.storeSucceeds()
        try h.perform(.chat("lost", to: .room), by: ann.user, from: ann.connection)
        guard case .wait(let ticket) = h.pipeline.awaitDurable(3) else { Issue.record("should wait"); return }
        h.storeFails()
        #expect(h.completed[ticket]??.code == .internalError)
        #expect(h.closed[ann.connection] == .storeFailure)
        #expect(h.sessionClosed)
        #expect(!h.eventSeqs(ann.connection).contains(3), "the refused chat reached no one")
        #expect(throws: CaucusError.self) { try h.perform(.chat("after", to: .room), by: ann.user) }
        #expect(h.pipeline.awaitDurable(3) == .failed(SessionPipeline<Int, ValueFrames>.storeFailure))
    }

    /// Issue 26, item 4: a store failure answers every command still waiting with its error
    /// before the close, so each sender knows which of its commands took effect.
    @Test func aStoreFailureAnswersEveryWaitingCommandBeforeTheClose() throws {
        try Self.waitingCommandsAreRefused(when: { $0.storeFails() }, closedWith: .storeFailure)
    }

    /// Ann's two chats and Ben's join wait for the store when `end` happens: each is refused
    /// (ids 21, 22 and 4) before both are closed with `reason`.
    static func waitingCommandsAreRefused(when end: (inout PipelineHarness) -> Void, closedWith reason: CloseCode) throws {
        var h = PipelineHarness()
        let ann = try h.join("Ann", claim: .host)
        h.storeSucceeds()
        let ben = try h.join("Ben", requestID: 4)
        try h.perform(.chat("first", to: .room), by: ann.user, from: ann.connection, requestID: 21)
        try h.perform(.chat("second", to: .room), by: ann.user, from: ann.connection, requestID: 22)
        end(&h)
        func refusals(_ connection: Int) -> [Int?] {
            (h.inbox[connection] ?? []).compactMap { frame in
                guard case .error(let re, let body) = frame, body.code == CaucusError.Code.internalError.rawValue else { return nil }
                return re
            }
        }
        #expect(refusals(ann.connection) == [21, 22], "\(h.inbox[ann.connection] ?? [])")
        #expect(refusals(ben.connection) == [4], "the join that was not stored is refused too")
        // Their callers, resumed after the close, must not answer them again.
        #expect(h.answered[ann.connection] == [21, 22] && h.answered[ben.connection] == [4], "\(h.answered)")
        #expect(h.closed[ann.connection] == reason && h.closed[ben.connection] == reason)
        #expect(h.violations.isEmpty, "\(h.violations)")
    }

    @Test func anOpeningRefusedForItsNameFailsTheJoinersWithoutClosingThem() throws {
        var h = PipelineHarness()
        let ann = try h.join("Ann", claim: .host)
        let ben = try h.join("Ben")
        guard case .wait(let annTicket) = h.pipeline.awaitDurable(1), case .wait(let benTicket) = h.pipeline.awaitDurable(h.pipeline.seq) else {
            Issue.record("both joins should wait")
            return
        }
        h.openingRefused()
        #expect(h.completed[annTicket] != nil && h.completed[benTicket] != nil, "every joiner hears its join failed")
        #expect(h.closed.isEmpty, "no socket closed: each join is placed again, on the node that won the name")
        #expect(h.inbox[ann.connection, default: []].isEmpty && h.inbox[ben.connection, default: []].isEmpty)
        #expect(h.sessionClosed)
        #expect(h.storeCall == nil)
    }

    @Test func aLostLeaseClosesEveryClientWithMovedAndWritesNothingMore() throws {
        var h = PipelineHarness()
        let ann = try h.join("Ann", claim: .host)
        h.storeSucceeds()
        try h.perform(.chat("in flight", to: .room), by: ann.user, from: ann.connection)
        guard case .wait(let ticket) = h.pipeline.awaitDurable(h.pipeline.seq) else { Issue.record("should wait"); return }
        h.leaseLost()
        #expect(h.completed[ticket]??.code == .internalError, "never acknowledged")
        #expect(h.closed[ann.connection] == .moved)
        #expect(h.sessionClosed)
        #expect(throws: CaucusError.self) { try h.perform(.chat("after", to: .room), by: ann.user) }
        #expect(h.storeCall == nil, "nothing more is written")
    }

    /// Issue 27, item 3: a node that gives a session up (its lease ran out unrenewed, or was
    /// taken) answers every command still waiting for the store that it did not take effect,
    /// before the 4007 close: a store outage never leaves a command unanswered.
    @Test func aLostLeaseAnswersEveryWaitingCommandBeforeTheMovedClose() throws {
        try Self.waitingCommandsAreRefused(when: { $0.leaseLost() }, closedWith: .moved)
    }

    @Test func aResumeReplaysWhatTheUserMissedAndMaySeeThenItsReturn() throws {
        var h = PipelineHarness()
        let ann = try h.join("Ann", claim: .host)
        let bo = try h.join("Bo")
        h.settle()
        let boSeen = h.eventSeqs(bo.connection).last ?? 3
        h.drop(bo.user, connection: bo.connection)
        try h.perform(.chat("while you were out", to: .room), by: ann.user)
        try h.perform(.chat("just for Ann", to: .user(ann.user)), by: ann.user)
        h.settle()
        let back = try h.resume(bo.user, after: boSeen)
        guard case .resumed(bo.user, let from?, nil, _, _)? = h.replies(back).first else { Issue.record("\(h.inbox[back] ?? [])"); return }
        #expect(from == boSeen + 1)
        let missed = h.events(back)
        #expect(missed.count == 2, "its own drop and the room chat, not the direct message: \(missed)")
        guard case .userReconnecting = missed.first, case .chatMessage(let message) = missed.last else { Issue.record("\(missed)"); return }
        #expect(message.text == "while you were out")
        h.settle()
        guard case .userResumed(bo.user) = h.events(back).last else { Issue.record("no userResumed"); return }
        #expect(h.violations.isEmpty, "\(h.violations)")
    }

    @Test func aResumeOlderThanTheWindowGetsASnapshot() throws {
        var h = PipelineHarness(replayWindow: 2)
        let ann = try h.join("Ann", claim: .host)
        let bo = try h.join("Bo")
        h.settle()
        h.drop(bo.user, connection: bo.connection)
        for text in ["a", "b", "c"] { try h.perform(.chat(text, to: .room), by: ann.user) }
        h.settle()
        let back = try h.resume(bo.user, after: 3)
        guard case .resumed(_, nil, let snapshot?, _, _)? = h.replies(back).first else { Issue.record("\(h.inbox[back] ?? [])"); return }
        #expect(snapshot.seq == 7, "everything durable when it was taken")
        #expect(h.eventSeqs(back).isEmpty, "nothing the snapshot includes follows it")
    }

    @Test func aResumeOnAnotherConnectionClosesTheOldOne() throws {
        var h = PipelineHarness()
        let ann = try h.join("Ann", claim: .host)
        h.settle()
        let second = try h.resume(ann.user, after: 2)
        #expect(h.closed[ann.connection] == .replaced)
        #expect(h.storeCall == nil, "the seat was never lost: no event")
        #expect(h.replies(second).count == 1)
    }

    @Test func aResumeBeyondTheLogIsRefusedAndChangesNothing() throws {
        var h = PipelineHarness()
        let ann = try h.join("Ann", claim: .host)
        h.settle()
        #expect(throws: CaucusError.self) { _ = try h.resume(ann.user, after: 99) }
        #expect(throws: CaucusError.self) { _ = try h.resume(UserID(42), after: 0) }
        #expect(h.closed.isEmpty && h.pipeline.connections[ann.user] == ann.connection)
    }

    @Test func rosterNewsWaitsForTheWindowButNeverOvertakesAnythingElse() throws {
        var h = PipelineHarness(holdsRoster: true)
        let ann = try h.join("Ann", claim: .host)
        h.settle()
        let bo = try h.join("Bo")
        h.settle()
        #expect(h.rosterWindowOpen)
        #expect(h.eventSeqs(ann.connection).isEmpty, "Bo's join is held for Ann")
        try h.perform(.chat("hi", to: .room), by: bo.user)
        h.settle()
        #expect(h.eventSeqs(ann.connection) == [3, 4], "the chat releases the held join ahead of itself")
        let cy = try h.join("Cy")
        h.settle()
        h.endRosterWindow()
        #expect(h.eventSeqs(ann.connection) == [3, 4, 5])
        _ = cy
    }

    @Test func theNextDeadlineIsScheduledAndTheTickMovesTheSessionOn() throws {
        var h = PipelineHarness()
        let ann = try h.join("Ann", claim: .host)
        let bo = try h.join("Bo")
        h.settle()
        h.drop(bo.user, connection: bo.connection)
        h.settle()
        let deadline = try #require(h.tickAt)
        #expect(deadline == h.now.adding(seconds: 20), "the seat is held for the grace")
        h.now = deadline
        h.tickAt = nil  // the timer fired
        h.run(h.pipeline.tick(at: deadline))
        h.settle()
        guard case .userLeft(bo.user, .timedOut, _) = h.events(ann.connection).last else { Issue.record("\(h.events(ann.connection))"); return }
        #expect(h.tickAt == nil)
    }

    @Test func shutdownTellsEveryoneToReconnectAndRecordsNothingMore() throws {
        var h = PipelineHarness()
        let ann = try h.join("Ann", claim: .host)
        let bo = try h.join("Bo")
        h.settle()
        h.run(h.pipeline.shutdown())
        #expect(h.closed[ann.connection] == .serviceRestart && h.closed[bo.connection] == .serviceRestart)
        h.drop(bo.user, connection: bo.connection)
        #expect(h.storeCall == nil, "a departure during shutdown is not recorded")
        #expect(throws: CaucusError.self) { try h.perform(.chat("late", to: .room), by: ann.user) }
    }

    @Test func aSnapshotWaitsUntilEverythingItIncludesIsDelivered() throws {
        var h = PipelineHarness(holdsRoster: true)
        let ann = try h.join("Ann", claim: .host)
        h.settle()
        _ = try h.join("Bo")
        #expect(h.pipeline.deliveredSnapshot(for: ann.user).snapshot == nil, "Bo's join is not durable yet")
        h.settle()
        let (snapshot, actions) = h.pipeline.deliveredSnapshot(for: ann.user)
        h.run(actions)
        #expect(snapshot?.seq == 3)
        #expect(h.eventSeqs(ann.connection) == [3], "the held roster news goes out before the snapshot")
    }

    @Test func aRemovedUserHearsOfItThenItsConnectionCloses() throws {
        var h = PipelineHarness()
        let ann = try h.join("Ann", claim: .host)
        let bo = try h.join("Bo")
        h.settle()
        try h.perform(.remove(bo.user), by: ann.user, from: ann.connection)
        h.settle()
        guard case .userLeft(bo.user, .removed, _) = h.events(bo.connection).last else { Issue.record("\(h.events(bo.connection))"); return }
        #expect(h.closed[bo.connection] == .removed)
        #expect(h.pipeline.connections[bo.user] == nil)
    }

    @Test func theEndOfTheSessionClosesEveryoneThenFreesTheName() throws {
        var h = PipelineHarness()
        let ann = try h.join("Ann", claim: .host)
        h.settle()
        try h.perform(.leave(endSession: true), by: ann.user, from: ann.connection)
        guard let batch = h.storeCall else { Issue.record("nothing to store"); return }
        h.storeCall = nil
        h.stored += batch
        let actions = h.pipeline.batchStored()
        // Last: the shell performs the rest at once, then frees the name (see `store(_:)`).
        guard case .sessionClosed? = actions.last else { Issue.record("\(actions)"); return }
        h.run(actions)
        #expect(h.closed[ann.connection] == .sessionEnded)
    }

    @Test func aRestoredSessionIsDurableUpToItsLogAndReplaysFromIt() throws {
        var h = PipelineHarness()
        let ann = try h.join("Ann", claim: .host)
        try h.perform(.chat("before the restart", to: .room), by: ann.user)
        h.settle()
        var restored = PipelineHarness()
        restored.pipeline.restore(h.stored)
        #expect(restored.pipeline.state == h.pipeline.state)
        #expect(restored.pipeline.durableSeq == 3)
        restored.run(restored.pipeline.holdSeatsAfterRestart(at: h.now))
        restored.settle()
        let back = try restored.resume(ann.user, after: 2)
        #expect(restored.events(back).count >= 2, "the chat and the seat's loss, from the log: \(restored.events(back))")
    }
}

/// How long roster news waits, by session size.
@Suite struct RosterWindowLengthTests {
    typealias Pipeline = SessionPipeline<Int, ValueFrames>

    @Test func aSmallSessionHoldsRosterNewsForTheConfiguredWindow() {
        #expect(Pipeline.rosterWindow(base: .milliseconds(5), users: 1) == .milliseconds(5))
        #expect(Pipeline.rosterWindow(base: .milliseconds(5), users: 199) == .milliseconds(5))
        #expect(Pipeline.rosterWindow(base: .zero, users: 5_000) == .zero, "zero: never held, whatever the size")
    }

    @Test func aBigSessionHoldsItLongerButNeverPastAQuarterSecond() {
        #expect(Pipeline.rosterWindow(base: .milliseconds(5), users: 1_000) == .milliseconds(50))
        #expect(Pipeline.rosterWindow(base: .milliseconds(5), users: 10_000) == .milliseconds(250))
        #expect(Pipeline.rosterWindow(base: .milliseconds(400), users: 10) == .milliseconds(400), "a longer configured window stays as set")
    }

    @Test func theWindowStartedFollowsTheSessionsSize() throws {
        var h = PipelineHarness(holdsRoster: true)
        _ = try h.join("Ann", claim: .host)
        h.settle()
        _ = try h.join("Bo")
        h.settle()
        #expect(h.rosterWindows == [.milliseconds(5)])
    }
}
