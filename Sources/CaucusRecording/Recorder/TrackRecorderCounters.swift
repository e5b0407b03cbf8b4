extension TrackRecorder {
    /// What a track's recorder wrote, dropped or refused, for metrics and tests.
    public struct Counters: Hashable, Sendable {
        public var framesWritten = 0
        /// Video frames before the first keyframe or after a loss, before the next.
        public var framesWaitingForKeyframe = 0
        /// Frames dropped because more than ``TrackRecorder/maximumHeldFrames`` waited for a sender report.
        public var framesWaitingForClock = 0
        /// Losses the reassembly reported.
        public var losses = 0
        /// Packets of another SSRC, and frames the muxer refused (an empty one).
        public var refused = 0
    }
}
