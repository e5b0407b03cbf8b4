/// Turns one frame's RTP payloads into packets of one stream: consecutive sequence numbers
/// (wrapping at 2^16), the frame's timestamp on each, and the marker bit where the codec puts
/// it. It owns the stream's next sequence number, so frames sent through it stay contiguous.
public struct RTPPacketSequencer: Hashable, Sendable {
    public let ssrc: UInt32
    public let payloadType: UInt8
    /// The sequence number the next packet gets.
    public private(set) var nextSequenceNumber: UInt16

    public init(ssrc: UInt32, payloadType: UInt8, firstSequenceNumber: UInt16) {
        self.ssrc = ssrc
        self.payloadType = payloadType & 0x7F
        self.nextSequenceNumber = firstSequenceNumber
    }

    /// One packet per payload, in order. `markerOnLast` sets the marker bit on the last one:
    /// the end of a video frame (RFC 7741 §4.1, RFC 6184 §5.1), or for Opus the first packet
    /// of a talkspurt (RFC 7587 §4.1, where the frame is one packet).
    public mutating func packets(payloads: [[UInt8]], timestamp: UInt32, markerOnLast: Bool) -> [RTPPacket] {
        var packets: [RTPPacket] = []
        packets.reserveCapacity(payloads.count)
        for (index, payload) in payloads.enumerated() {
            packets.append(
                RTPPacket(
                    marker: markerOnLast && index == payloads.count - 1, payloadType: payloadType,
                    sequenceNumber: nextSequenceNumber, timestamp: timestamp, ssrc: ssrc, payload: payload))
            nextSequenceNumber &+= 1
        }
        return packets
    }
}
