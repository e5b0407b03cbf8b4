import Testing

@testable import CaucusServer

/// The roster hold driven directly: news is held once for everyone, each recipient gets what
/// it does not have yet (never twice, never out of order), those owed the same share one
/// release, and nothing goes to a recipient that is gone.
@Suite struct RosterHoldTests {
    private func attached(_ recipients: String...) -> RosterHold<String, Int> {
        var hold = RosterHold<String, Int>()
        for recipient in recipients { hold.attach(recipient, through: 0) }
        return hold
    }

    @Test func newsIsHeldOnceAndTheFirstHoldOpensTheWindow() {
        var hold = attached("ann", "bo")
        let opened = hold.hold(1, seq: 1)
        let openedAgain = hold.hold(2, seq: 2)
        #expect(opened, "the first news opens a window")
        #expect(!openedAgain)
        #expect(!hold.isEmpty)
        let released = hold.releaseAll()
        #expect(released.count == 1, "owed the same: one release")
        #expect(Set(released.flatMap(\.recipients)) == ["ann", "bo"])
        #expect(released.map(\.frames) == [[1, 2]])
        #expect(hold.isEmpty)
        let reopened = hold.hold(3, seq: 3)
        #expect(reopened, "a new window")
    }

    /// A join storm: everyone present hears of each join; a joiner's own reply already covers
    /// everything up to its join, so it is owed only what came after.
    @Test func aRecipientAttachedDuringTheWindowGetsOnlyWhatFollowsItsFirstFrame() {
        var hold = attached("ann", "bo")
        _ = hold.hold(1, seq: 1)
        _ = hold.hold(2, seq: 2)
        hold.attach("cy", through: 2)
        _ = hold.hold(3, seq: 3)
        hold.attach("dee", through: 3)
        let released = hold.releaseAll()
        #expect(owed(released) == ["ann": [1, 2, 3], "bo": [1, 2, 3], "cy": [3]], "dee is owed nothing")
        #expect(released.count == 2)
    }

    /// A joiner attached before its own join's news is held (the join is still being stored)
    /// skips that news in a later window too.
    @Test func anAttachAheadOfTheNewsOutlastsTheWindow() {
        var hold = attached("ann")
        _ = hold.hold(1, seq: 1)
        hold.attach("cy", through: 3)
        let firstWindow = hold.releaseAll()
        #expect(owed(firstWindow) == ["ann": [1]])
        _ = hold.hold(2, seq: 2)
        _ = hold.hold(3, seq: 3)
        _ = hold.hold(4, seq: 4)
        #expect(owed(hold.releaseAll()) == ["ann": [2, 3, 4], "cy": [4]])
    }

    @Test func anEarlyReleaseIsNotRepeatedWhenTheWindowEnds() {
        var hold = attached("ann", "bo")
        _ = hold.hold(1, seq: 1)
        let first = hold.release("ann")
        let second = hold.release("ann")
        #expect(first.map(\.frame) == [1])
        #expect(second.isEmpty, "released once")
        _ = hold.hold(2, seq: 2)
        #expect(owed(hold.releaseAll()) == ["ann": [2], "bo": [1, 2]])
    }

    /// A reply may still go to a connection that closed; held news never does.
    @Test func nothingIsReleasedToARecipientNeverAttachedOrForgotten() {
        var hold = attached("ann", "bo")
        _ = hold.hold(1, seq: 1)
        hold.forget("bo")
        let toBo = hold.release("bo")
        let toCy = hold.release("cy")
        #expect(toBo.isEmpty)
        #expect(toCy.isEmpty)
        #expect(owed(hold.releaseAll()) == ["ann": [1]])
    }

    @Test func discardingDropsTheNews() {
        var hold = attached("ann")
        _ = hold.hold(1, seq: 1)
        hold.discard()
        let released = hold.releaseAll()
        #expect(hold.isEmpty)
        #expect(released.isEmpty)
    }

    /// What each recipient is owed, whatever the grouping.
    private func owed(_ released: [RosterHold<String, Int>.Release]) -> [String: [Int]] {
        var owed: [String: [Int]] = [:]
        for release in released {
            for recipient in release.recipients {
                #expect(owed[recipient] == nil, "\(recipient) released twice")
                owed[recipient] = release.frames
            }
        }
        return owed
    }
}
