internal import CaucusMedia

/// One stream this user publishes (its audio or its video): packetises each frame the app
/// hands in into RTP packets of the stream's SSRC, and keeps the last video packets so a
/// NACK from the server can be answered. Pure.
struct SendStream {
    /// What fits in one datagram with SRTP's tag and ICE's overhead on a 1,280-byte path.
    static let maximumPayloadSize = 1_100
    /// How many recent packets a NACK can still be answered from (video only).
    static let historySize = 512

    let codec: MediaCodec
    private var sequencer: RTPPacketSequencer
    private var pictureID = VP8PayloadDescriptor.PictureID.long(UInt16.random(in: 0...0x7FFF))
    /// Added to every timestamp, so the stream's origin says nothing of the app's clock (RFC 3550 §5.1).
    private let timestampOffset = UInt32.random(in: 0...UInt32.max)
    private var history: [UInt16: RTPPacket] = [:]
    private var historyOrder: [UInt16] = []

    /// The ID the answer gave RFC 6464 audio levels, when it kept them (audio only).
    private let audioLevelID: UInt8?
    /// The last packet's RTP time and when it went, and what went in all: the sender report's
    /// fields (RFC 3550 §6.4.1).
    private var lastSent: (timestamp: UInt32, at: Duration)?
    private var packetCount: UInt32 = 0
    private var octetCount: UInt32 = 0

    init(codec: MediaCodec, ssrc: UInt32, audioLevelID: UInt8? = nil) {
        self.codec = codec
        self.audioLevelID = codec == .opus ? audioLevelID : nil
        sequencer = RTPPacketSequencer(
            ssrc: ssrc, payloadType: Self.payloadType(of: codec),
            firstSequenceNumber: UInt16.random(in: 0...UInt16.max))
    }

    var ssrc: UInt32 { sequencer.ssrc }

    /// The packets of one frame, in order.
    mutating func packets(for frame: EncodedFrame) throws(SessionError) -> [RTPPacket] {
        guard frame.codec == codec else { throw .media("a \(frame.codec) frame was sent as \(codec)") }
        let payloads: [[UInt8]]
        do throws(RTPPacketizationError) {
            switch codec {
            case .opus:
                payloads = try OpusPayload.payloads(for: frame.bytes, maximumPayloadSize: Self.maximumPayloadSize)
            case .vp8:
                payloads = try VP8Payload.payloads(
                    for: frame.bytes, descriptor: VP8PayloadDescriptor(startsPartition: true, pictureID: pictureID),
                    maximumPayloadSize: Self.maximumPayloadSize)
                pictureID = pictureID.next
            case .h264:
                let nalUnits = H264AnnexB.nalUnits(in: frame.bytes)
                guard !nalUnits.isEmpty else { throw .emptyFrame }
                payloads = try H264Payload.payloads(for: nalUnits, maximumPayloadSize: Self.maximumPayloadSize)
            }
        } catch {
            throw .media("the \(codec) frame cannot be sent: \(error)")
        }
        var packets = sequencer.packets(payloads: payloads, timestamp: frame.timestamp &+ timestampOffset, markerOnLast: codec != .opus)
        if let audioLevelID, let level = frame.audioLevel {
            // RFC 6464: V (voice activity) and the level as -dBov.
            let element = RTPHeaderExtensionElement(id: audioLevelID, data: [(level > -127 ? 0x80 : 0) | UInt8(-level)])
            for index in packets.indices { packets[index].headerExtension = RTPHeaderExtension(elements: [element]) }
        }
        if codec != .opus { remember(packets) }
        return packets
    }

    /// Notes `packets` as sent at `now` (the peer's monotonic clock).
    mutating func sent(_ packets: [RTPPacket], at now: Duration) {
        guard let last = packets.last else { return }
        lastSent = (last.timestamp, now)
        packetCount &+= UInt32(truncatingIfNeeded: packets.count)
        for packet in packets { octetCount &+= UInt32(truncatingIfNeeded: packet.payload.count) }
    }

    /// A sender report for `now`, whose wall-clock time is `ntp` (RFC 3550's 64-bit NTP
    /// format): the RTP time of that instant, extrapolated from the last packet sent at the
    /// codec's clock rate. It is what lets a receiver (and a recording) put this stream's
    /// frames on a wall clock, in step with this user's other streams. Nil before anything went.
    func senderReport(now: Duration, ntp: UInt64) -> RTCPSenderReport? {
        guard let lastSent else { return nil }
        let rate: Int64 = codec == .opus ? 48_000 : 90_000
        let (seconds, attoseconds) = (now - lastSent.at).components
        let ticks = seconds * rate + attoseconds / 1_000_000_000 * rate / 1_000_000_000
        return RTCPSenderReport(
            ssrc: ssrc, ntpTimestamp: ntp, rtpTimestamp: lastSent.timestamp &+ UInt32(truncatingIfNeeded: ticks), packetCount: packetCount,
            octetCount: octetCount)
    }

    /// The payload type the SDK's offer gives the codec.
    static func payloadType(of codec: MediaCodec) -> UInt8 {
        switch codec {
        case .opus: SDPOffer.opusPayloadType
        case .vp8: SDPOffer.vp8PayloadType
        case .h264: SDPOffer.h264PayloadType
        }
    }

    /// The packets asked for again that are still kept.
    func retransmissions(of sequenceNumbers: [UInt16]) -> [RTPPacket] {
        sequenceNumbers.compactMap { history[$0] }
    }

    private mutating func remember(_ packets: [RTPPacket]) {
        for packet in packets {
            history[packet.sequenceNumber] = packet
            historyOrder.append(packet.sequenceNumber)
        }
        if historyOrder.count > Self.historySize {
            let excess = historyOrder.count - Self.historySize
            for number in historyOrder.prefix(excess) { history[number] = nil }
            historyOrder.removeFirst(excess)
        }
    }
}
