import NIOCore
import Testing

@testable import caucus

/// What `caucus bench media` counts as a user's arrival in its new room, slot by slot.
@Suite struct MediaBenchMoveTests {
    private let time = NIODeadline.uptimeNanoseconds(1_000)

    @Test func anAudioSlotArrivesWithItsFirstPacketFromANewRoommate() {
        // Slot 1 carried user 7, slot 2 user 1: 1 was in the main session, now a roommate, but
        // its packets in slot 2 may still come through the old routing.
        var move = MediaBenchMove(audioRoommates: [1, 2], videoRoommates: [], audioBefore: [1: 7, 2: 8], videoBefore: [:], fillableVideoSlots: 0)
        move.heardAudio(from: 7, slot: 1, at: time)
        move.heardAudio(from: 8, slot: 2, at: time)
        #expect(move.result(last: [1: 7, 2: 8]).firstAudio == nil)
        #expect(!move.result(last: [1: 7, 2: 8]).isComplete)
        move.heardAudio(from: 2, slot: 1, at: time + .milliseconds(5))
        move.heardAudio(from: 2, slot: 1, at: time + .milliseconds(9))
        move.heardAudio(from: 1, slot: 2, at: time + .milliseconds(7))
        let result = move.result(last: [1: 2, 2: 1])
        #expect(result.firstAudio == time + .milliseconds(5))
        #expect(!result.audioKept)
        #expect(result.isComplete)
    }

    @Test func slotsThatKeepARoommateAreKeptNotTimedNorMissing() {
        var move = MediaBenchMove(audioRoommates: [1], videoRoommates: [], audioBefore: [1: 1], videoBefore: [:], fillableVideoSlots: 0)
        move.heardAudio(from: 1, slot: 1, at: time)
        let result = move.result(last: [1: 1])
        #expect(result.firstAudio == nil)
        #expect(result.audioKept)
        #expect(!result.audioMissing)
        #expect(result.isComplete)
        // A kept user stays untimed when another slot switches later.
        var both = MediaBenchMove(audioRoommates: [1, 2], videoRoommates: [], audioBefore: [1: 1, 2: 9], videoBefore: [:], fillableVideoSlots: 0)
        both.heardAudio(from: 2, slot: 2, at: time)
        #expect(both.result(last: [1: 1, 2: 2]).audioKept)
        #expect(both.result(last: [1: 1, 2: 2]).firstAudio == nil)
        // Still carrying someone of another room: missing.
        #expect(MediaBenchMove(audioRoommates: [1], videoRoommates: [], audioBefore: [1: 9], videoBefore: [:], fillableVideoSlots: 0).result(last: [1: 9]).audioMissing)
    }

    @Test func eachVideoSlotCountsItsFirstKeyframeFromANewRoommate() {
        // Slot 10 showed user 5 (another room), slot 11 showed roommate 1, slot 12 nothing.
        var move = MediaBenchMove(audioRoommates: [], videoRoommates: [1, 2, 3], audioBefore: [:], videoBefore: [10: 5, 11: 1], fillableVideoSlots: 3)
        move.sawKeyframe(from: 5, slot: 10, at: time)
        move.sawKeyframe(from: 1, slot: 11, at: time)
        #expect(move.result(last: [10: 5, 11: 1]).videoKeyframes.isEmpty)
        #expect(move.result(last: [10: 5, 11: 1]).videoKept == 1)
        #expect(move.result(last: [10: 5, 11: 1]).videoMissing == 2)
        move.sawKeyframe(from: 2, slot: 10, at: time + .milliseconds(40))
        move.sawKeyframe(from: 3, slot: 12, at: time + .milliseconds(60))
        move.sawKeyframe(from: 3, slot: 12, at: time + .milliseconds(90))
        let result = move.result(last: [10: 2, 11: 1, 12: 3])
        #expect(result.videoKeyframes.sorted() == [time + .milliseconds(40), time + .milliseconds(60)])
        #expect(result.videoMissing == 0)
        #expect(result.isComplete)
    }

    /// An audio slot that keeps a roommate who also publishes video is no kept video slot.
    @Test func keptSlotsAreCountedByKind() {
        let move = MediaBenchMove(audioRoommates: [1], videoRoommates: [1], audioBefore: [1: 1], videoBefore: [:], fillableVideoSlots: 1)
        let result = move.result(last: [1: 1])
        #expect(result.audioKept)
        #expect(result.videoKept == 0)
        #expect(result.videoMissing == 1)
    }
}
