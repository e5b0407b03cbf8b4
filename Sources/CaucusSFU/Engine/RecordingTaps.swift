import CaucusMedia

/// Which publishers are recorded and, by SSRC, what the recording tap hands over of each of
/// their streams: a part of the ``ForwardingEngine`` with state of its own. The shell says who
/// is recorded (``record(_:)``); the engine says which SSRC each stream forwards now and in
/// which format (``learn(streams:upTracks:catalog:)``), whenever either changes; the packet
/// path makes one lookup per packet (``tap(_:)``), and copies no track.
///
/// Only the SSRC a stream forwards now is tapped (of a simulcast publication, one layer), in its
/// own payload type; redundant audio (RFC 2198) is handed over as its primary encoding alone.
struct RecordingTaps {
    /// A recorded stream's SSRC: whose stream it is and its format's plain values.
    private struct Tap {
        let stream: PublishedStream
        let format: RecordableFormat
    }

    /// The publishers (users) recorded now; empty: none, and nothing is tapped.
    private(set) var publishers: Set<Int> = []
    private var taps: [UInt32: Tap] = [:]

    var isEmpty: Bool { publishers.isEmpty }

    /// Records `publishers` from now on (none when empty); ``learn(streams:upTracks:catalog:)``
    /// must follow, with the engine's streams.
    mutating func record(_ publishers: Set<Int>) {
        self.publishers = publishers
    }

    /// The taps made again: each recorded publisher's stream on the SSRC it forwards now
    /// (`streams`), where that SSRC's up-track carries the stream in a known format.
    mutating func learn(streams: [PublishedStream: UInt32], upTracks: [UInt32: UpTrack], catalog: FormatCatalog) {
        taps.removeAll(keepingCapacity: true)
        guard !publishers.isEmpty else { return }
        for (stream, ssrc) in streams where publishers.contains(stream.publisher) {
            guard let track = upTracks[ssrc], track.stream == stream, let format = track.format else { continue }
            taps[ssrc] = Tap(stream: stream, format: catalog.recordable[format])
        }
    }

    /// What to hand the shell of `packet` (decrypted RTP as it arrived): nil when its SSRC is
    /// not tapped or its payload type is not its stream's (nor its redundancy's), or its
    /// redundancy does not parse.
    func tap(_ packet: [UInt8]) -> ForwardingEngine.RecordedPacket? {
        guard packet.count >= 12, let tap = taps[ForwardingEngine.read32(packet, at: 8)] else { return nil }
        let described = tap.format
        let payloadType = packet[1] & 0x7F
        var recorded = packet
        if let red = described.redundancyPayloadType, payloadType == red {
            let length = recorded.withUnsafeMutableBytes {
                RedundantAudio.stripToPrimary($0, length: packet.count, primaryPayloadType: described.payloadType)
            }
            guard let length else { return nil }
            recorded.removeLast(recorded.count - length)
            recorded[1] = (recorded[1] & 0x80) | described.payloadType
        } else if payloadType != described.payloadType {
            return nil
        }
        return ForwardingEngine.RecordedPacket(stream: tap.stream, codec: described.codec, clockRate: described.clockRate, packet: recorded)
    }
}
