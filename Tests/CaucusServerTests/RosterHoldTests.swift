import Testing

@testable import CaucusServer

/// The roster hold driven directly: what it sends, what it holds, and that one recipient's
/// frames never change order.
@Suite struct RosterHoldTests {
    @Test func rosterNewsIsHeldAndTheFirstHoldStartsTheTimer() {
        var hold = RosterHold<String, Int>()
        guard case .held(startTimer: true) = hold.deliver([1], to: "ann", urgent: false) else { Issue.record("not held"); return }
        guard case .held(startTimer: false) = hold.deliver([2], to: "bo", urgent: false) else { Issue.record("not held"); return }
        guard case .held(startTimer: false) = hold.deliver([3], to: "ann", urgent: false) else { Issue.record("not held"); return }
        #expect(!hold.isEmpty)
        let released = hold.releaseAll()
        #expect(released.map(\.0) == ["ann", "bo"])
        #expect(released.map(\.1) == [[1, 3], [2]])
        #expect(hold.isEmpty)
        guard case .held(startTimer: true) = hold.deliver([4], to: "bo", urgent: false) else { Issue.record("a new window"); return }
    }

    @Test func anythingElseReleasesThatRecipientsHeldFramesAheadOfItself() {
        var hold = RosterHold<String, Int>()
        _ = hold.deliver([1, 2], to: "ann", urgent: false)
        _ = hold.deliver([3], to: "bo", urgent: false)
        guard case .send(let frames) = hold.deliver([4, 5], to: "ann", urgent: true) else { Issue.record("not sent"); return }
        #expect(frames == [1, 2, 4, 5])
        #expect(hold.releaseAll().map(\.1) == [[3]], "others stay held")
    }

    @Test func releasingOneRecipientLeavesTheOthers() {
        var hold = RosterHold<String, Int>()
        _ = hold.deliver([1], to: "ann", urgent: false)
        _ = hold.deliver([2], to: "bo", urgent: false)
        #expect(hold.release("ann") == [1])
        #expect(hold.release("ann") == [])
        #expect(hold.releaseAll().map(\.0) == ["bo"])
    }

    @Test func urgentFramesWithNothingHeldGoAsTheyAre() {
        var hold = RosterHold<String, Int>()
        guard case .send(let frames) = hold.deliver([7], to: "ann", urgent: true) else { Issue.record("not sent"); return }
        #expect(frames == [7])
        #expect(hold.isEmpty)
    }
}
