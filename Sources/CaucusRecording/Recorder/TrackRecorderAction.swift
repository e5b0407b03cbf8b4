/// What a ``TrackRecorder`` asks its shell to do, in order.
public enum TrackRecorderAction: Hashable, Sendable {
    /// Ask the publisher for a keyframe (video only): recording waits for one. Repeated at
    /// most every half second of the stream's time while it waits; the forwarding engine's
    /// own keyframe requests coalesce it further.
    case requestKeyframe
    /// Open a new file and write this header; every ``writeCluster`` until ``endFile`` goes into it.
    case startFile(RecordingFileStart)
    /// A whole cluster for the open file, and the file's duration once it is written: the time
    /// of its last block, in milliseconds (see ``WebMFile/append(cluster:durationMilliseconds:)``).
    case writeCluster([UInt8], durationMilliseconds: Int64)
    /// Close the open file.
    case endFile(RecordingFileEnd)
}

/// A file a ``TrackRecorder`` starts: enough for the timeline and a composer to place it.
public struct RecordingFileStart: Hashable, Sendable {
    /// 0 for the track's first file, then 1, 2, … (a resolution change, or the sender's clock
    /// jumping back, starts a new one).
    /// The file is `<base>-<index>.webm`, or `.mkv` when `codec` is H.264 (``fileExtension``).
    public var index: Int
    public var header: WebMHeader
    public var codec: WebMTrack.Codec
    /// Where the file's time 0 lies on the location's clock, in microseconds: a block at `t`
    /// ms in the file was captured at `clockOffset + t × 1000` on the location's clock (to
    /// within ``FrameTiming/deadband`` while the clock's estimate settles).
    public var clockOffset: Int64

    /// `webm`, or `mkv` for what WebM does not hold (H.264).
    public var fileExtension: String { codec.docType.fileExtension }
}

/// A file a ``TrackRecorder`` ends.
public struct RecordingFileEnd: Hashable, Sendable {
    public enum Reason: String, Hashable, Sendable, Codable {
        /// Recording of the track stopped (the publisher left, moved, or recording was stopped).
        case finished
        /// A keyframe of another size came: the next file holds it.
        case resolutionChanged
        /// An H.264 keyframe of the same size but other parameter sets (SPS, PPS) came: the
        /// next file, whose CodecPrivate has them, holds it.
        case parametersChanged
        /// The sender's clock jumped back (``LocationClock/lateReportLimit`` or more): the next
        /// file starts at the clock's new time (video at the next keyframe, asked for at once).
        case clockJumpedBack
    }

    public var index: Int
    /// The time of its last block, in milliseconds from its start.
    public var durationMilliseconds: Int64
    public var reason: Reason
}
