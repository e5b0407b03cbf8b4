import NIOCore

/// One user's arrival in its new room, as its packets tell it: the first audio packet from a
/// roommate it did not hear before the start (one it did hear may have reached it through
/// its old routing), and in each video slot the first keyframe from a roommate other than the
/// one the slot showed before. Fed by the peer on its loop; pure apart from the times it is given.
struct MediaBenchMove {
    struct Result: Sendable {
        /// Nil when nothing came in time, or nothing could mark the arrival (``audioUnmeasurable``).
        var firstAudio: NIODeadline?
        /// The user has audio roommates, but heard all of them before the start.
        var audioUnmeasurable: Bool
        var audioExpected: Bool
        /// By video slot that switched to a roommate, the first keyframe's arrival.
        var videoKeyframes: [NIODeadline]
        /// Video slots that showed a roommate before the start and still do (nothing to switch).
        var videoKept: Int
        var fillableVideoSlots: Int

        var videoMissing: Int { max(0, fillableVideoSlots - videoKeyframes.count - videoKept) }
        var audioMissing: Bool { audioExpected && !audioUnmeasurable && firstAudio == nil }
        var isComplete: Bool { !audioMissing && videoMissing == 0 }
    }

    private var awaitedAudio: Set<Int> = []
    private var audioRoommates: Set<Int> = []
    private var videoRoommates: Set<Int> = []
    private var videoBefore: [UInt32: Int] = [:]
    private var fillableVideoSlots = 0
    private var firstAudio: NIODeadline?
    private var keyframes: [UInt32: NIODeadline] = [:]

    init() {}

    init(audioRoommates: Set<Int>, audioHeardBefore: Set<Int>, videoRoommates: Set<Int>, videoBefore: [UInt32: Int], fillableVideoSlots: Int) {
        self.audioRoommates = audioRoommates
        awaitedAudio = audioRoommates.subtracting(audioHeardBefore)
        self.videoRoommates = videoRoommates
        self.videoBefore = videoBefore
        self.fillableVideoSlots = fillableVideoSlots
    }

    mutating func heardAudio(from publisher: Int, at time: NIODeadline) {
        if firstAudio == nil, awaitedAudio.contains(publisher) { firstAudio = time }
    }

    mutating func sawKeyframe(from publisher: Int, slot: UInt32, at time: NIODeadline) {
        guard keyframes[slot] == nil, videoRoommates.contains(publisher), videoBefore[slot] != publisher else { return }
        keyframes[slot] = time
    }

    /// `videoLast`: by video slot, whose video it received last.
    func result(videoLast: [UInt32: Int]) -> Result {
        let kept = videoBefore.filter { slot, before in
            keyframes[slot] == nil && videoLast[slot] == before && videoRoommates.contains(before)
        }.count
        return Result(
            firstAudio: firstAudio, audioUnmeasurable: !audioRoommates.isEmpty && awaitedAudio.isEmpty, audioExpected: !audioRoommates.isEmpty,
            videoKeyframes: Array(keyframes.values), videoKept: kept, fillableVideoSlots: fillableVideoSlots)
    }
}
