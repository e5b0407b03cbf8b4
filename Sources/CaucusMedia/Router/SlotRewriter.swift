/// The header fields a forwarded packet leaves with.
public struct RewrittenHeader: Hashable, Sendable {
    public let ssrc: UInt32
    public let sequenceNumber: UInt16
    public let timestamp: UInt32

    /// Writes the three fields into an RTP packet's fixed header (RFC 3550 §5.1), in place.
    public func write(into packet: UnsafeMutableRawBufferPointer) {
        guard packet.count >= 12 else { return }
        packet.storeBytes(of: sequenceNumber.bigEndian, toByteOffset: 2, as: UInt16.self)
        packet.storeBytes(of: timestamp.bigEndian, toByteOffset: 4, as: UInt32.self)
        packet.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
    }
}

/// One outgoing slot's RTP stream. The slot has its own fixed SSRC; whichever source fills it,
/// the subscriber sees one continuous stream:
///
/// - Within one source, sequence numbers and timestamps keep the source's own spacing (an
///   offset each), so a loss upstream stays a gap the subscriber can NACK.
/// - The first packet of a new source follows the slot's last packet: sequence number +1, and
///   a timestamp advanced by the arrival-time gap at the slot's clock rate (at least 1, at most
///   a minute), so the receiver's jitter buffer sees time move on, never back.
/// - Packets that would go back are dropped: the old source's after a switch, a source's late
///   or repeated ones, and any whose timestamp would precede the slot's last.
///
/// Time is an input (`arrival`, the caller's monotonic clock). The rewriter is mutable state
/// owned by whoever owns the subscriber; the routing table says which packets reach it.
public struct SlotRewriter: Sendable {
    public let slot: SlotID
    public let outgoingSSRC: UInt32
    /// The incoming SSRC the slot forwards now; nil while the slot is empty.
    public private(set) var source: UInt32?
    /// What this slot has forwarded, for its sender reports.
    public private(set) var packetCount: UInt32 = 0
    public private(set) var octetCount: UInt32 = 0

    /// How one source's numbers map onto the slot's.
    struct Run: Hashable, Sendable {
        let source: UInt32
        let sequenceOffset: UInt16
        let timestampOffset: UInt32
        let firstOut: UInt16
        var lastOut: UInt16
        var highestIn: UInt16
    }

    var run: Run?
    /// Earlier runs, newest last, kept to map NACKs of packets sent before a switch.
    var history: [Run] = []
    static let historyLimit = 4
    /// The largest timestamp step at a switch: a slot idle for an hour resumes a minute on.
    static let maximumGapSeconds: UInt64 = 60

    private var last: (sequenceNumber: UInt16, timestamp: UInt32, arrival: Duration)?
    private let initialSequenceNumber: UInt16
    private let initialTimestamp: UInt32

    public init(slot: SlotID, outgoingSSRC: UInt32, initialSequenceNumber: UInt16 = 0, initialTimestamp: UInt32 = 0) {
        self.slot = slot
        self.outgoingSSRC = outgoingSSRC
        self.initialSequenceNumber = initialSequenceNumber
        self.initialTimestamp = initialTimestamp
    }

    /// Points the slot at another incoming SSRC (nil empties it). Returns whether the new
    /// source must be asked for a keyframe: a video or screen-share slot that now has another
    /// source. (`RoutingUpdate` coalesces these across a batch of slots.)
    @discardableResult
    public mutating func select(source newSource: UInt32?) -> Bool {
        guard newSource != source else { return false }
        if let run {
            history.append(run)
            if history.count > Self.historyLimit { history.removeFirst() }
        }
        run = nil
        source = newSource
        return newSource != nil && slot.kind.needsKeyframe
    }

    /// The header a packet from `ssrc` leaves with, or nil to drop it.
    public mutating func rewrite(
        ssrc: UInt32, sequenceNumber: UInt16, timestamp: UInt32, payloadLength: Int, arrival: Duration
    ) -> RewrittenHeader? {
        guard ssrc == source else { return nil }
        let outSequence: UInt16
        let outTimestamp: UInt32
        if var current = run {
            guard SerialNumber.isNewer(sequenceNumber, than: current.highestIn) else { return nil }
            outSequence = sequenceNumber &+ current.sequenceOffset
            outTimestamp = timestamp &+ current.timestampOffset
            if let last, SerialNumber.isNewer(last.timestamp, than: outTimestamp) { return nil }
            current.highestIn = sequenceNumber
            current.lastOut = outSequence
            run = current
        } else {
            if let last {
                outSequence = last.sequenceNumber &+ 1
                outTimestamp = last.timestamp &+ step(after: arrival - last.arrival)
            } else {
                outSequence = initialSequenceNumber
                outTimestamp = initialTimestamp
            }
            run = Run(
                source: ssrc, sequenceOffset: outSequence &- sequenceNumber, timestampOffset: outTimestamp &- timestamp,
                firstOut: outSequence, lastOut: outSequence, highestIn: sequenceNumber)
        }
        last = (outSequence, outTimestamp, arrival)
        packetCount &+= 1
        octetCount &+= UInt32(truncatingIfNeeded: max(payloadLength, 0))
        return RewrittenHeader(ssrc: outgoingSSRC, sequenceNumber: outSequence, timestamp: outTimestamp)
    }

    /// The timestamp step for an arrival gap: the gap in clock ticks, from 1 to a minute's.
    private func step(after gap: Duration) -> UInt32 {
        let rate = UInt64(slot.kind.clockRate)
        let (seconds, attoseconds) = gap.components
        guard seconds >= 0 else { return 1 }
        let whole = min(UInt64(seconds), Self.maximumGapSeconds) * rate
        let fraction = seconds >= Int64(Self.maximumGapSeconds) ? 0 : UInt64(attoseconds / 1_000_000_000) * rate / 1_000_000_000
        return UInt32(max(1, whole + fraction))
    }
}
