/// Reassembles one RTP stream's frames (the depacketiser): fed its packets (one SSRC, after
/// SRTP) in any order, with losses and duplicates, it hands on each frame once, whole, in
/// sequence order, and reports the sequence numbers it gives up on, so the receiver can ask
/// for a keyframe.
///
/// Rules:
/// - A frame is delivered only when all its packets are present: from a known first packet,
///   consecutive sequence numbers (across the 16-bit wrap) with one timestamp up to the one
///   that ends it (the marker bit; every Opus packet is a frame), and its payloads parse
///   (see ``VP8Payload`` and ``H264Payload``). Otherwise it is never delivered, only lost.
/// - Frames go out in sequence order. A frame behind a gap waits for the gap to fill (a
///   reordered or retransmitted packet) until the caller gives up on it (``skipMissing()``,
///   after its NACK went unanswered) or the stream runs ``maximumSpan`` packets past it. Then
///   the missing range, and the incomplete frames around it, are reported in one ``FrameLoss``
///   and assembly resumes at the next frame whose start is known: a VP8 packet starting
///   partition 0, any Opus packet, an H.264 packet after one with the marker or another
///   timestamp.
/// - A packet at or before what was resolved (delivered or lost) is late and dropped, as is a
///   second copy of a buffered one; neither changes anything (see ``counters``).
/// - Memory is bounded: it buffers only packets within ``maximumSpan`` sequence numbers of the
///   newest (1,024 by default, some 1.5 MB of 1,500-byte packets, seconds of HD video).
///
/// Without `firstSequenceNumber` the stream's start is unknown: the first frame delivered is
/// the first complete one whose start is known; packets before it are reported lost once it
/// is, and any older that come later are late.
public struct FrameAssembler: Sendable {
    /// What it dropped without it changing anything.
    public struct Counters: Hashable, Sendable {
        /// Packets at or before what was already resolved.
        public var late = 0
        /// Second copies of a buffered packet.
        public var duplicates = 0
        /// Datagrams that are not RTP packets.
        public var undecodable = 0
    }

    public let codec: Codec
    /// How many sequence numbers behind the newest packet it waits for a missing one.
    public let maximumSpan: Int
    public private(set) var counters = Counters()

    private var buffer: [UInt16: BufferedPacket] = [:]
    /// The last sequence number resolved: delivered in a frame or reported lost.
    private var resolved: UInt16?
    /// Whether the packet after `resolved` starts a frame.
    private var boundaryKnown: Bool
    private var newest: UInt16?

    /// `maximumSpan` is kept within 16...16,384.
    public init(codec: Codec, firstSequenceNumber: UInt16? = nil, maximumSpan: Int = 1024) {
        self.codec = codec
        self.maximumSpan = min(max(maximumSpan, 16), 16_384)
        self.resolved = firstSequenceNumber.map { $0 &- 1 }
        self.boundaryKnown = firstSequenceNumber != nil
    }

    /// How many packets it holds: never more than ``maximumSpan``.
    public var bufferedPacketCount: Int { buffer.count }

    /// Takes one received datagram (an RTP packet after SRTP); anything else is counted and
    /// changes nothing.
    public mutating func receive(datagram: [UInt8]) -> [FrameAssemblyEvent] {
        guard let packet = try? RTPPacket(decoding: datagram) else {
            counters.undecodable += 1
            return []
        }
        return receive(packet)
    }

    /// Takes one packet of the stream and returns the frames it completed and the losses it
    /// made certain, in sequence order.
    public mutating func receive(_ packet: RTPPacket) -> [FrameAssemblyEvent] {
        let number = packet.sequenceNumber
        if let resolved, !SerialNumber.isNewer(number, than: resolved) {
            counters.late += 1
            return []
        }
        guard buffer[number] == nil else {
            counters.duplicates += 1
            return []
        }
        if resolved == nil, let newest, !SerialNumber.isNewer(number, than: newest), Int(newest &- number) >= maximumSpan {
            // The start is unknown and this lies further behind the newest than it waits.
            counters.late += 1
            return []
        }
        buffer[number] = BufferedPacket(timestamp: packet.timestamp, marker: packet.marker, payload: packet.payload)
        if newest.map({ SerialNumber.isNewer(number, than: $0) }) ?? true { newest = number }
        return drain()
    }

    /// Takes the packet numbered `sequenceNumber` as a whole frame by itself, without buffering
    /// it, when nothing can come of it but that: it is the next after what was resolved,
    /// nothing waits in the buffer, and it is a frame alone (every Opus packet; a VP8 packet
    /// with the marker, `endsFrame`, whose payload the caller found to hold a whole frame,
    /// ``VP8Payload/wholeFrame(in:)``). Returns false, changing nothing, otherwise (and always
    /// for H.264): the caller then hands the packet to ``receive(_:)``. For Opus the caller
    /// checks that the payload is not empty (an empty one is a malformed frame).
    /// The recorder's per-packet path: no copy, no buffer, no events.
    public mutating func takeWholeFrame(sequenceNumber: UInt16, endsFrame: Bool = true) -> Bool {
        // Nothing is buffered when nothing newer than what was resolved arrived (a buffered
        // packet is always newer): read from this value's own fields, not the buffer's storage,
        // which a per-packet path would touch cold.
        guard codec == .opus || (codec == .vp8 && endsFrame), boundaryKnown, let resolved, newest == nil || newest == resolved,
            sequenceNumber == resolved &+ 1
        else { return false }
        self.resolved = sequenceNumber
        newest = sequenceNumber
        return true
    }

    /// Gives up on the gap the next frame waits behind: reports it lost and resumes at the
    /// next frame whose start is known and whose packets are all here (or that is malformed).
    /// Nothing happens while no such frame is buffered.
    public mutating func skipMissing() -> [FrameAssemblyEvent] {
        guard let base = nextUnresolved, let start = earliestResumption(from: base) else { return [] }
        var events = resolveLost(from: base, upTo: start)
        boundaryKnown = true
        events += drain()
        return events
    }

    /// The end of the stream: delivers what is complete and reports everything else lost.
    public mutating func finish() -> [FrameAssemblyEvent] {
        var events = drain()
        while true {
            let more = skipMissing()
            if more.isEmpty { break }
            events += more
        }
        if let base = nextUnresolved, let newest, !buffer.isEmpty {
            events += resolveLost(from: base, upTo: newest &+ 1)
            boundaryKnown = false
        }
        return events
    }

    // MARK: - Assembly

    private var oldestBuffered: UInt16? {
        guard let newest else { return nil }
        return buffer.keys.max { (newest &- $0) < (newest &- $1) }
    }

    /// The first sequence number not resolved yet (the oldest buffered while none was).
    private var nextUnresolved: UInt16? {
        resolved.map { $0 &+ 1 } ?? oldestBuffered
    }

    private mutating func drain() -> [FrameAssemblyEvent] {
        var events: [FrameAssemblyEvent] = []
        while let newest, let base = nextUnresolved, !buffer.isEmpty {
            if boundaryKnown {
                switch walk(from: base) {
                case .complete(let end, let frame):
                    events.append(.frame(AssembledFrame(
                        timestamp: buffer[base]?.timestamp ?? 0, isKeyframe: frame.isKeyframe, bytes: frame.bytes,
                        firstSequenceNumber: base, packetCount: Int(end &- base) + 1)))
                    remove(from: base, upTo: end &+ 1)
                    resolved = end
                    continue
                case .malformed(let end):
                    events += resolveLost(from: base, upTo: end &+ 1)
                    continue
                case .incomplete:
                    break
                }
            }
            let overfull = Int(newest &- base) >= maximumSpan
            guard overfull || !boundaryKnown else { break }
            if let start = earliestResumption(from: base) {
                events += resolveLost(from: base, upTo: start)
                boundaryKnown = true
                continue
            }
            guard overfull else { break }
            // Nothing to resume at: drop what lies too far behind and wait for a known start.
            events += resolveLost(from: base, upTo: newest &- UInt16(maximumSpan - 1))
            boundaryKnown = false
        }
        return events
    }

    private enum Walk {
        case complete(end: UInt16, CodecFrame)
        case malformed(end: UInt16)
        case incomplete
    }

    /// Reads the frame that starts at `start`: its packets up to the one that ends it.
    private func walk(from start: UInt16) -> Walk {
        guard let first = buffer[start] else { return .incomplete }
        var payloads: [ArraySlice<UInt8>] = []
        var number = start
        for _ in 0..<maximumSpan {
            guard let packet = buffer[number] else { return .incomplete }
            if number != start, packet.timestamp != first.timestamp || codec.payloadStartsFrame(packet.payload) {
                // The next frame began before this one ended.
                return .malformed(end: number &- 1)
            }
            payloads.append(packet.payload[...])
            if codec.endsFrame(packet) {
                guard let frame = codec.frame(from: payloads) else { return .malformed(end: number) }
                return .complete(end: number, frame)
            }
            number &+= 1
        }
        return .malformed(end: number &- 1)
    }

    /// Whether a frame starts at `number`, as far as the buffer shows.
    private func knownStart(_ number: UInt16) -> Bool {
        guard let packet = buffer[number] else { return false }
        if codec == .h264 {
            guard let previous = buffer[number &- 1] else { return false }
            return previous.marker || previous.timestamp != packet.timestamp
        }
        return codec.payloadStartsFrame(packet.payload)
    }

    /// The earliest buffered frame at or after `base` whose start is known and whose packets
    /// are all here (complete or malformed): where assembly can resume after a gap.
    private func earliestResumption(from base: UInt16) -> UInt16? {
        guard let newest else { return nil }
        let candidates = buffer.keys.filter { SerialNumber.contains($0, from: base, through: newest) && knownStart($0) }
        for start in candidates.sorted(by: { ($0 &- base) < ($1 &- base) }) {
            if case .incomplete = walk(from: start) { continue }
            return start
        }
        return nil
    }

    /// Reports `base..<end` lost (with the timestamps of what arrived of it), drops those
    /// packets and moves past them.
    private mutating func resolveLost(from base: UInt16, upTo end: UInt16) -> [FrameAssemblyEvent] {
        let count = Int(end &- base)
        resolved = end &- 1
        guard count > 0 else { return [] }
        let arrived = buffer.filter { Int($0.key &- base) < count }.sorted { ($0.key &- base) < ($1.key &- base) }
        var timestamps: [UInt32] = []
        for (_, packet) in arrived where !timestamps.contains(packet.timestamp) {
            timestamps.append(packet.timestamp)
        }
        remove(from: base, upTo: end)
        return [.lost(FrameLoss(firstSequenceNumber: base, count: count, timestamps: timestamps))]
    }

    private mutating func remove(from base: UInt16, upTo end: UInt16) {
        let count = Int(end &- base)
        if count <= buffer.count {
            for offset in 0..<count { buffer[base &+ UInt16(offset)] = nil }
        } else {
            buffer = buffer.filter { Int($0.key &- base) >= count }
        }
    }
}
