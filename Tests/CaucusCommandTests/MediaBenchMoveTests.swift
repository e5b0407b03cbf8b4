import NIOCore
import Testing

@testable import caucus

/// What `caucus bench media` counts as a user's arrival in its new room.
@Suite struct MediaBenchMoveTests {
    private let time = NIODeadline.uptimeNanoseconds(1_000)

    @Test func audioFromARoommateHeardBeforeTheStartDoesNotCount() {
        var move = MediaBenchMove(audioRoommates: [1, 2], audioHeardBefore: [1], videoRoommates: [], videoBefore: [:], fillableVideoSlots: 0)
        move.heardAudio(from: 1, at: time)
        move.heardAudio(from: 7, at: time)
        #expect(move.result(videoLast: [:]).firstAudio == nil)
        #expect(!move.result(videoLast: [:]).isComplete)
        move.heardAudio(from: 2, at: time + .milliseconds(5))
        #expect(move.result(videoLast: [:]).firstAudio == time + .milliseconds(5))
        move.heardAudio(from: 2, at: time + .milliseconds(9))
        #expect(move.result(videoLast: [:]).firstAudio == time + .milliseconds(5))
        #expect(move.result(videoLast: [:]).isComplete)
    }

    @Test func aUserWhoHeardAllItsRoomBeforeIsNotTimedButNotMissing() {
        let move = MediaBenchMove(audioRoommates: [1], audioHeardBefore: [1, 2], videoRoommates: [], videoBefore: [:], fillableVideoSlots: 0)
        let result = move.result(videoLast: [:])
        #expect(result.audioUnmeasurable)
        #expect(!result.audioMissing)
        #expect(result.isComplete)
    }

    @Test func eachVideoSlotCountsItsFirstKeyframeFromANewRoommate() {
        // Slot 10 showed user 5 (another room), slot 11 showed roommate 1, slot 12 nothing.
        var move = MediaBenchMove(audioRoommates: [], audioHeardBefore: [], videoRoommates: [1, 2, 3], videoBefore: [10: 5, 11: 1], fillableVideoSlots: 3)
        move.sawKeyframe(from: 5, slot: 10, at: time)
        move.sawKeyframe(from: 1, slot: 11, at: time)
        #expect(move.result(videoLast: [10: 5, 11: 1]).videoKeyframes.isEmpty)
        // Slot 11 keeps roommate 1: nothing to switch, not missing.
        #expect(move.result(videoLast: [10: 5, 11: 1]).videoKept == 1)
        #expect(move.result(videoLast: [10: 5, 11: 1]).videoMissing == 2)
        move.sawKeyframe(from: 2, slot: 10, at: time + .milliseconds(40))
        move.sawKeyframe(from: 3, slot: 12, at: time + .milliseconds(60))
        move.sawKeyframe(from: 3, slot: 12, at: time + .milliseconds(90))
        let result = move.result(videoLast: [10: 2, 11: 1, 12: 3])
        #expect(result.videoKeyframes.sorted() == [time + .milliseconds(40), time + .milliseconds(60)])
        #expect(result.videoMissing == 0)
        #expect(result.isComplete)
    }
}
