import CaucusMedia

/// Recording as an in-process subscriber of forwarding: the engine hands its shell what the
/// recorded publishers send (their decrypted RTP as forwarded, and their sender reports, which
/// place each track on the location's clock), with no SRTP and no socket. Which publishers are
/// recorded is the shell's to say (``record(_:)``): recording follows where a user *is*, which
/// the engine does not know (it knows where a user listens).
///
/// Of a simulcast publication only the layer forwarded now is recorded, so a layer change is a
/// change of SSRC the recorder sees. Redundant audio (RFC 2198) is handed over as its primary
/// encoding alone: a recording has no loss to recover from.
extension ForwardingEngine {
    /// What a recorded publisher sent.
    public enum RecordedMedia: Sendable {
        case rtp(RecordedPacket)
        case senderReport(RecordedSenderReport)
        /// A location's new speaker order, loudest first (its number as the shell gave it).
        case speakers(location: Int, [Int])
    }

    /// One RTP packet of a recorded stream, as it arrived (after SRTP).
    public struct RecordedPacket: Sendable {
        public let stream: PublishedStream
        /// The codec's name, lower-cased (`opus`, `vp8`, `h264`).
        public let codec: String
        public let clockRate: Int
        public let packet: [UInt8]
    }

    /// A recorded stream's RTCP sender report.
    public struct RecordedSenderReport: Sendable {
        public let stream: PublishedStream
        public let clockRate: Int
        public let report: RTCPSenderReport
        /// The SSRC the stream's packets carry now (a report of another layer says nothing of it).
        public let isForwardedLayer: Bool
        /// When it arrived, for a report handed over again when its publisher's recording
        /// starts; nil for one handed over as it arrives.
        public let arrival: Duration?
    }

    /// The publishers (users) whose streams the shell records from now on; empty: none.
    ///
    /// A publisher recorded from now on has each of its streams' latest sender report handed
    /// over at once, with its arrival: a recorded track waits for a report to place it on the
    /// location's clock, and a sender may not send the next for seconds (Chromium's audio
    /// sends one every 2.5–7.5 s), which a recording that starts would lose.
    public func record(_ publishers: Set<Int>) {
        let added = publishers.subtracting(recording.publishers)
        recording.record(publishers)
        learnRecordingTaps()
        guard !added.isEmpty else { return }
        for (_, track) in upTracks.sorted(by: { $0.key < $1.key }) where added.contains(track.stream.publisher) {
            guard let (report, arrival) = track.lastSenderReport else { continue }
            handOver(report, of: track, arrival: arrival)
        }
    }

    /// The publishers recorded now.
    var recordedPublishers: Set<Int> { recording.publishers }

    /// The taps made again whenever the recorded publishers or the streams' SSRCs and formats
    /// change (``learnStreams()``).
    func learnRecordingTaps() {
        recording.learn(streams: ssrcsByStream, upTracks: &upTracks)
    }

    /// Asks `stream`'s publisher for a keyframe of the SSRC recorded now, unless one is asked
    /// already (paced with every other request: ``KeyframeRequests``).
    public func requestKeyframe(of stream: PublishedStream, now: Duration) {
        guard let ssrc = ssrcsByStream[stream], keyframeRequests.shouldRequest(ssrc, at: now) else { return }
        outputs.append(.rtcp(user: stream.publisher, packet: Self.pli(ssrc), .keyframeRequest))
    }

    /// Hands `packet` to the shell when the up-track at `track` is tapped (``UpTrack/isRecorded``).
    func tapForRecording(_ packet: [UInt8], track: Dictionary<UInt32, UpTrack>.Index) {
        // Read in place (an inout access): read through the dictionary's getter, the whole
        // up-track was copied (its cache retained and released) for every packet.
        guard let (stream, format) = Self.recordingTap(of: &upTracks.values[track]),
            let recorded = RecordingTaps.tap(packet, of: stream, in: catalog.recordable[format])
        else { return }
        outputs.append(.record(.rtp(recorded)))
    }

    private static func recordingTap(of track: inout UpTrack) -> (PublishedStream, format: Int)? {
        guard track.isRecorded, let format = track.format else { return nil }
        return (track.stream, format)
    }

    /// Hands a recorded publisher's sender report to the shell.
    func tapForRecording(_ report: RTCPSenderReport, from user: Int) {
        guard recording.publishers.contains(user), let track = upTracks[report.ssrc], track.stream.publisher == user else { return }
        handOver(report, of: track, arrival: nil)
    }

    /// `track`'s sender report to the shell, with when it came (nil: now), once its format is known.
    private func handOver(_ report: RTCPSenderReport, of track: UpTrack, arrival: Duration?) {
        guard let format = track.format else { return }
        outputs.append(.record(.senderReport(RecordedSenderReport(
            stream: track.stream, clockRate: catalog.recordable[format].clockRate, report: report,
            isForwardedLayer: ssrcsByStream[track.stream] == report.ssrc, arrival: arrival))))
    }
}
