import CaucusCore
import CaucusProtocol
import Testing

@testable import CaucusServer

/// A `ping` with `after` counts the events this seat was sent since then, so that a client can
/// tell an event it lost from one that went to others.
@Suite struct PingCountTests {
    @Test func theCountIsOfThisSeatsEventsOnlyAndComesAfterThem() throws {
        var h = PipelineHarness()
        let ann = try h.join("Ann", claim: .host)
        let bo = try h.join("Bo")
        let cy = try h.join("Cy")
        h.settle()
        let after = h.stored.last!.seq
        try h.perform(.chat("to everyone", to: .room), by: ann.user)
        try h.perform(.chat("to Cy", to: .user(cy.user)), by: ann.user)
        try h.perform(.chat("to Bo", to: .user(bo.user)), by: ann.user)
        h.settle()
        let (seq, sent) = h.ping(bo.user, after: after, connection: bo.connection)
        #expect(seq == h.stored.last?.seq)
        #expect(sent == 2, "the chat to everyone and the one to Bo, not the one to Cy")
        #expect(h.eventSeqs(bo.connection).filter { $0 > after }.count == 2)
        let (_, annSent) = h.ping(ann.user, after: after, connection: ann.connection)
        #expect(annSent == h.eventSeqs(ann.connection).filter { $0 > after }.count)
    }

    /// `after` is the client's to say: one beyond the session's seq (Int.max included, whose
    /// successor overflowed and stopped the server) counts nothing.
    @Test func anAfterBeyondTheSessionsSeqCountsNothing() throws {
        var h = PipelineHarness()
        let ann = try h.join("Ann", claim: .host)
        h.settle()
        try h.perform(.chat("stored", to: .room), by: ann.user)
        h.settle()
        let seq = try #require(h.stored.last?.seq)
        for after in [seq + 1, Int.max - 1, Int.max] {
            #expect(h.ping(ann.user, after: after, connection: ann.connection) == (seq, 0), "after \(after)")
        }
    }

    @Test func whatTheStoreDoesNotHaveYetIsNotCounted() throws {
        var h = PipelineHarness()
        let ann = try h.join("Ann", claim: .host)
        h.settle()
        try h.perform(.chat("pending", to: .room), by: ann.user)
        let (seq, sent) = h.ping(ann.user, after: 2, connection: ann.connection)
        #expect(seq == 2 && sent == 0, "the chat is not durable, so it was not sent")
        h.settle()
        #expect(h.ping(ann.user, after: 2, connection: ann.connection) == (3, 1))
    }

    @Test func heldRosterNewsGoesOutBeforeTheReplyThatCountsIt() throws {
        var h = PipelineHarness(holdsRoster: true)
        let ann = try h.join("Ann", claim: .host)
        h.settle()
        _ = try h.join("Bo")
        h.settle()
        #expect(h.eventSeqs(ann.connection).isEmpty, "Bo's join is held for the roster window")
        let (_, sent) = h.ping(ann.user, after: 2, connection: ann.connection)
        #expect(sent == 1)
        #expect(h.eventSeqs(ann.connection).count == 1, "released before the reply")
        guard case .reply(_, .pong)? = h.inbox[ann.connection]?.last else {
            Issue.record("the pong should come last: \(h.inbox[ann.connection] ?? [])")
            return
        }
    }

    @Test func eventsBeforeTheJoinAreNotCountedAndAnOutrunWindowSaysItCannotTell() throws {
        var h = PipelineHarness(replayWindow: 3)
        let ann = try h.join("Ann", claim: .host)
        h.settle()
        for n in 0..<5 { try h.perform(.chat("m\(n)", to: .room), by: ann.user) }
        h.settle()
        let bo = try h.join("Bo")
        h.settle()
        // Bo joined at seq 8: the window (6…8) reaches back to his join.
        #expect(h.ping(bo.user, after: 0, connection: bo.connection) == (8, 0))
        // Ann asks about seq 3 on, which the window (6…8) no longer holds.
        #expect(h.ping(ann.user, after: 2, connection: ann.connection) == (8, nil))
        #expect(h.ping(ann.user, after: 6, connection: ann.connection) == (8, 2))
    }

    /// The window is bounded in bytes too: each event's frame (100 bytes here) and the list of
    /// who got it when not everyone did (8 bytes a name: Ann and Bo for a chat to Bo, 116 in
    /// all). Past 2,000 bytes the oldest go, however few events the window then holds.
    @Test func theWindowIsBoundedInBytesAsWellAsInEvents() throws {
        var h = PipelineHarness(replayWindow: 1_000, replayWindowBytes: 2_000)
        let ann = try h.join("Ann", claim: .host)
        let bo = try h.join("Bo")
        h.settle()
        let before = try #require(h.stored.last?.seq)
        for n in 0..<30 { try h.perform(.chat("m\(n)", to: .user(bo.user)), by: ann.user) }
        h.settle()
        let last = try #require(h.stored.last?.seq)
        let kept = h.pipeline.window.bytes
        #expect(kept == 17 * 116, "\(kept) bytes kept: the last 17 chats")
        // The first chats are gone: a ping from before them cannot be told…
        #expect(h.ping(bo.user, after: before, connection: bo.connection) == (last, nil))
        // …and the last 17 are there, each counted.
        #expect(h.ping(bo.user, after: last - 17, connection: bo.connection) == (last, 17))
        #expect(h.ping(bo.user, after: last - 18, connection: bo.connection) == (last, nil))
    }
}
