import CaucusMedia

/// One publisher stream as it reaches the engine, on one incoming SSRC (a simulcast layer is
/// an up-track of its own): the publication it carries, its format, and what forwarding keeps
/// of it — for video and screen share its keyframe detection, its recent packets for repairs
/// and the losses on its way in; for audio the RFC 6464 level's extension ID. A packet's
/// arrival is one call on it (one lookup on the packet path).
struct UpTrack {
    /// What a video or screen-share stream keeps for loss repair.
    struct Repair {
        let codec: KeyframeDetector.Codec
        var cache = RetransmissionCache()
        var loss = UpstreamLoss()
    }

    let stream: PublishedStream
    /// Its format's catalog number; nil while no offer says it (a layer learned before its plan).
    var format: Int?
    var repair: Repair?
    /// The audio level extension's ID in its publisher's answer.
    var audioLevelID: UInt8?
    /// Its latest RTCP sender report and when it came: what places it on a recording's clock,
    /// handed to a recording that starts (a sender may not send the next for seconds).
    var lastSenderReport: (report: RTCPSenderReport, arrival: Duration)?
    /// Handed over to recording as it arrives: its publisher is recorded, and it is the SSRC
    /// its stream forwards now (``RecordingTaps``, which keeps the mark).
    var isRecorded = false

    /// Where its packets' audio level is, and whose voice it is.
    var audioLevel: (id: UInt8, publisher: Int)? { audioLevelID.map { ($0, stream.publisher) } }

    /// What one arriving packet (already known to be routed) tells: whether it opens a keyframe,
    /// the sequence numbers it shows lost (empty when none), and whether it fills a gap the
    /// router was asking the publisher to repair (a repair, or a packet that came late).
    mutating func arrive(
        _ packet: [UInt8], sequenceNumber: UInt16, at arrival: Duration
    ) -> (startsKeyframe: Bool, lost: [UInt16], fillsGap: Bool) {
        guard repair != nil else { return (false, [], false) }
        repair!.cache.insert(packet, sequenceNumber: sequenceNumber)
        let fillsGap = repair!.loss.isMissing(sequenceNumber)
        let lost = repair!.loss.received(sequenceNumber, at: arrival)
        return (KeyframeDetector.startsKeyframe(packet, codec: repair!.codec), lost, fillsGap)
    }
}

extension ForwardingEngine {
    /// The publisher of the up-track at `index`, read in place. Through the dictionary's
    /// getter (`upTracks.values[index].stream`) the whole track was copied, its repair cache
    /// retained and released, for every packet: about 0.7 % of the media loop's samples in a
    /// profile (docs/benchmarks.md).
    func publisher(ofUpTrackAt index: Dictionary<UInt32, UpTrack>.Index) -> Int {
        Self.publisher(of: &upTracks.values[index])
    }

    // An inout access reads the track where it lies (the dictionary's modify accessor); these
    // change nothing.
    private static func publisher(of track: inout UpTrack) -> Int { track.stream.publisher }

    static func audioLevel(of track: inout UpTrack) -> (id: UInt8, publisher: Int)? { track.audioLevel }
}
