import CaucusMedia

/// Which publishers are recorded, and which of their up-tracks the recording tap hands over: a
/// part of the ``ForwardingEngine`` with state of its own. The shell says who is recorded
/// (``record(_:)``); the engine says which SSRC each stream forwards now, whenever that or the
/// up-tracks change (``learn(streams:upTracks:)``), and the tapped up-tracks are marked
/// (``UpTrack/isRecorded``). The packet path reads the mark on the up-track it has already
/// looked up: no lookup of its own per packet (a table of its own, probed per packet, cost the
/// recording about a third of its work on the media loop: docs/benchmarks.md), and no copy.
///
/// Only the SSRC a stream forwards now is tapped (of a simulcast publication, one layer), in its
/// own payload type; redundant audio (RFC 2198) is handed over as its primary encoding alone.
struct RecordingTaps {
    /// The publishers (users) recorded now; empty: none, and nothing is tapped.
    private(set) var publishers: Set<Int> = []
    /// Whether an up-track may carry a mark: when none does and nobody is recorded, a change of
    /// the streams reads no up-track (a session that records nothing pays nothing for it).
    private var marked = false

    var isEmpty: Bool { publishers.isEmpty }

    /// Records `publishers` from now on (none when empty); ``learn(streams:upTracks:)`` must
    /// follow, with the engine's streams.
    mutating func record(_ publishers: Set<Int>) {
        self.publishers = publishers
    }

    /// Marks again which up-tracks are tapped: a recorded publisher's stream on the SSRC it
    /// forwards now (`streams`), in a known format.
    mutating func learn(streams: [PublishedStream: UInt32], upTracks: inout [UInt32: UpTrack]) {
        guard !publishers.isEmpty || marked else { return }
        marked = false
        var index = upTracks.startIndex
        while index != upTracks.endIndex {
            let ssrc = upTracks.keys[index]
            let isTapped = Self.mark(&upTracks.values[index]) { [publishers] stream in
                publishers.contains(stream.publisher) && streams[stream] == ssrc
            }
            marked = marked || isTapped
            upTracks.formIndex(after: &index)
        }
    }

    /// Sets `track`'s mark: whether it has a format and `isTapped` says so of its stream; returns
    /// the mark. Changed in place (an inout access), and written only when it changes: read
    /// through the dictionary's getter, each up-track was copied, its repair cache retained.
    private static func mark(_ track: inout UpTrack, _ isTapped: (PublishedStream) -> Bool) -> Bool {
        let tapped = track.format != nil && isTapped(track.stream)
        if track.isRecorded != tapped { track.isRecorded = tapped }
        return tapped
    }

    /// What to hand the shell of `packet` (decrypted RTP as it arrived) of a tapped up-track
    /// of `stream` in `format`: nil when its payload type is not the format's (nor its
    /// redundancy's), or its redundancy does not parse.
    static func tap(_ packet: [UInt8], of stream: PublishedStream, in format: RecordableFormat) -> ForwardingEngine.RecordedPacket? {
        guard packet.count >= 12 else { return nil }
        let payloadType = packet[1] & 0x7F
        var recorded = packet
        if let red = format.redundancyPayloadType, payloadType == red {
            let length = recorded.withUnsafeMutableBytes {
                RedundantAudio.stripToPrimary($0, length: packet.count, primaryPayloadType: format.payloadType)
            }
            guard let length else { return nil }
            recorded.removeLast(recorded.count - length)
            recorded[1] = (recorded[1] & 0x80) | format.payloadType
        } else if payloadType != format.payloadType {
            return nil
        }
        return ForwardingEngine.RecordedPacket(stream: stream, codec: format.codec, clockRate: format.clockRate, packet: recorded)
    }
}
