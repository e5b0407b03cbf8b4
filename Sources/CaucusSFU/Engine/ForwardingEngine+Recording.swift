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
    }

    /// A recorded stream's SSRC as the tap knows it: whose stream it is and its format's plain
    /// values. Only the SSRC a stream forwards now has one (of a simulcast publication, one
    /// layer): a packet of any other SSRC is not recorded.
    struct RecordingTap {
        let stream: PublishedStream
        let format: RecordableFormat
    }

    /// The publishers (users) whose streams the shell records from now on; empty: none.
    public func record(_ publishers: Set<Int>) {
        recordedPublishers = publishers
        learnRecordingTaps()
    }

    /// The taps by SSRC, made again whenever the recorded publishers or the streams' SSRCs and
    /// formats change (``learnStreams()``): the packet path makes one lookup, and copies no
    /// track.
    func learnRecordingTaps() {
        recordingTaps.removeAll(keepingCapacity: true)
        guard !recordedPublishers.isEmpty else { return }
        for (stream, ssrc) in ssrcsByStream where recordedPublishers.contains(stream.publisher) {
            guard let track = upTracks[ssrc], track.stream == stream, let format = track.format else { continue }
            recordingTaps[ssrc] = RecordingTap(stream: stream, format: catalog.recordable[format])
        }
    }

    /// Asks `stream`'s publisher for a keyframe of the SSRC recorded now, unless one is asked
    /// already (paced with every other request: ``KeyframeRequests``).
    public func requestKeyframe(of stream: PublishedStream, now: Duration) {
        guard let ssrc = ssrcsByStream[stream], keyframeRequests.shouldRequest(ssrc, at: now) else { return }
        outputs.append(.rtcp(user: stream.publisher, packet: Self.pli(ssrc), .keyframeRequest))
    }

    /// Hands `packet` to the shell when its stream is recorded.
    func tapForRecording(_ packet: [UInt8]) {
        guard packet.count >= 12, let tap = recordingTaps[Self.read32(packet, at: 8)] else { return }
        let described = tap.format
        let payloadType = packet[1] & 0x7F
        var recorded = packet
        if let red = described.redundancyPayloadType, payloadType == red {
            let length = recorded.withUnsafeMutableBytes {
                RedundantAudio.stripToPrimary($0, length: packet.count, primaryPayloadType: described.payloadType)
            }
            guard let length else { return }
            recorded.removeLast(recorded.count - length)
            recorded[1] = (recorded[1] & 0x80) | described.payloadType
        } else if payloadType != described.payloadType {
            return
        }
        outputs.append(.record(.rtp(RecordedPacket(stream: tap.stream, codec: described.codec, clockRate: described.clockRate, packet: recorded))))
    }

    /// Hands a recorded publisher's sender report to the shell.
    func tapForRecording(_ report: RTCPSenderReport, from user: Int) {
        guard recordedPublishers.contains(user), let track = upTracks[report.ssrc], track.stream.publisher == user,
            let format = track.format
        else { return }
        outputs.append(.record(.senderReport(RecordedSenderReport(
            stream: track.stream, clockRate: catalog.recordable[format].clockRate, report: report,
            isForwardedLayer: ssrcsByStream[track.stream] == report.ssrc))))
    }
}
