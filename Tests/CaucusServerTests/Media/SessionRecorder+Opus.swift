import CaucusMedia
import CaucusRecording
@testable import CaucusSFU
@testable import CaucusServer

extension SessionRecorder {
    /// Writes Opus packets `indices` of `stream` (SSRC `ssrc`, RTP `origin` at index 0), 20 ms
    /// apart from `start`, as the engine hands them over.
    func writeOpus(_ indices: Range<Int>, of stream: PublishedStream, ssrc: UInt32, origin: UInt32, from start: Duration) {
        for index in indices {
            // A 20 ms CELT frame's TOC (config 31, mono) and a few bytes: the recorder never decodes.
            let packet = RTPPacket(
                payloadType: 111, sequenceNumber: UInt16(index), timestamp: origin &+ UInt32(index * 960), ssrc: ssrc,
                payload: [0xF8, 0xFF, 0xFE, 0x01, 0x02])
            write(.rtp(stream: stream, codec: .opus, clockRate: 48_000, datagram: packet.encoded()[...]), arrival: start + .milliseconds(20 * index))
        }
    }
}
