import NIOCore

/// One user's arrival in its new room, as its packets tell it, slot by slot: in an audio slot
/// the first packet from a roommate other than the one the slot carried before the start, in
/// a video slot the first keyframe from such a roommate (a video slot switches only at one).
/// A slot that carried a roommate before the start and still does had nothing to switch: it is
/// counted as kept, not timed (and a user with a kept audio slot is not timed for audio). The
/// user's first audio from its new room is its earliest audio slot's. Fed by the peer on its loop; pure apart from the times it is given.
struct MediaBenchMove {
    struct Result: Sendable {
        /// The earliest audio slot's arrival; nil when none switched (yet), or when the user
        /// never stopped hearing a roommate (``audioKept``).
        var firstAudio: NIODeadline?
        /// Whether the user has roommates publishing audio.
        var audioExpected: Bool
        /// An audio slot kept a roommate it carried before the start: the user heard its new
        /// room all along, so it is not timed.
        var audioKept: Bool
        /// By video slot that switched to a roommate, the first keyframe's arrival.
        var videoKeyframes: [NIODeadline]
        /// Video slots that carried a roommate before the start and still do.
        var videoKept: Int
        var fillableVideoSlots: Int

        var videoMissing: Int { max(0, fillableVideoSlots - videoKeyframes.count - videoKept) }
        var audioMissing: Bool { audioExpected && firstAudio == nil && !audioKept }
        var isComplete: Bool { !audioMissing && videoMissing == 0 }
    }

    private var audioRoommates: Set<Int> = []
    private var videoRoommates: Set<Int> = []
    /// By audio and by video slot (its SSRC), whose stream it carried last before the start.
    private var audioBefore: [UInt32: Int] = [:]
    private var videoBefore: [UInt32: Int] = [:]
    private var fillableVideoSlots = 0
    private var audioArrivals: [UInt32: NIODeadline] = [:]
    private var videoArrivals: [UInt32: NIODeadline] = [:]

    init() {}

    init(audioRoommates: Set<Int>, videoRoommates: Set<Int>, audioBefore: [UInt32: Int], videoBefore: [UInt32: Int], fillableVideoSlots: Int) {
        self.audioRoommates = audioRoommates
        self.videoRoommates = videoRoommates
        self.audioBefore = audioBefore
        self.videoBefore = videoBefore
        self.fillableVideoSlots = fillableVideoSlots
    }

    mutating func heardAudio(from publisher: Int, slot: UInt32, at time: NIODeadline) {
        guard audioArrivals[slot] == nil, audioRoommates.contains(publisher), audioBefore[slot] != publisher else { return }
        audioArrivals[slot] = time
    }

    mutating func sawKeyframe(from publisher: Int, slot: UInt32, at time: NIODeadline) {
        guard videoArrivals[slot] == nil, videoRoommates.contains(publisher), videoBefore[slot] != publisher else { return }
        videoArrivals[slot] = time
    }

    /// `last`: by slot, whose stream it carried last.
    func result(last: [UInt32: Int]) -> Result {
        func kept(_ before: [UInt32: Int], _ roommates: Set<Int>, _ arrivals: [UInt32: NIODeadline]) -> Int {
            before.filter { slot, publisher in arrivals[slot] == nil && last[slot] == publisher && roommates.contains(publisher) }.count
        }
        let audioKept = kept(audioBefore, audioRoommates, audioArrivals) > 0
        return Result(
            firstAudio: audioKept ? nil : audioArrivals.values.min(), audioExpected: !audioRoommates.isEmpty,
            audioKept: audioKept, videoKeyframes: Array(videoArrivals.values),
            videoKept: kept(videoBefore, videoRoommates, videoArrivals), fillableVideoSlots: fillableVideoSlots)
    }
}
