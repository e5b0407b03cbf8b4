import CaucusMedia

/// The header fields a forwarded packet leaves with.
public struct RewrittenHeader: Hashable, Sendable {
    public let ssrc: UInt32
    public let sequenceNumber: UInt16
    public let timestamp: UInt32
    /// How the packet's payload type and extensions are renumbered for the subscriber, when
    /// the slot was given one for its source (``SlotRewriter/select(source:policy:translation:)``).
    public let translation: HeaderTranslation?

    public init(ssrc: UInt32, sequenceNumber: UInt16, timestamp: UInt32, translation: HeaderTranslation? = nil) {
        self.ssrc = ssrc
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.translation = translation
    }

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
/// - A late packet of the current source (reordered, or retransmitted after a NACK) that
///   belongs to the current run goes out with the run's mapping, under the number the
///   subscriber is missing; one from before the run began is dropped (its number would
///   collide with an earlier source's).
/// - Dropped besides: other sources' packets, and a new packet whose timestamp would precede
///   the slot's last.
/// - A video slot whose subscriber still misses packets of an earlier source (which are never
///   repaired: they would show what the slot no longer carries) skips ``staleSkip`` numbers
///   at its next packet, once per source (``skipPastStaleNumbers()``): a receiver that waits
///   behind a gap (aiortc's jitter buffer holds every later frame until 512 packets past it,
///   then releases what it held, pictures of the room its user left) sees a jump too large
///   to wait for, drops what it holds and asks for a keyframe.
/// - A video slot may switch at the new source's keyframe (``SwitchPolicy/atKeyframe(keepingCurrent:)``):
///   until the new source's first keyframe packet, its packets are dropped and the current
///   source goes on (or, when it may no longer be forwarded, nothing does), so the subscriber
///   never decodes a picture predicted from one it never had.
///
/// Time is an input (`arrival`, the caller's monotonic clock). The rewriter is mutable state
/// owned by whoever owns the subscriber; the routing table says which packets reach it.
public struct SlotRewriter: Sendable {
    public let slot: SlotID
    public let outgoingSSRC: UInt32
    /// The incoming SSRC the slot forwards now; nil while the slot is empty.
    public private(set) var source: UInt32?
    /// The source the slot switches to at its next keyframe, if one is waited for.
    public private(set) var pending: UInt32?
    /// The current source's renumbering for this subscriber, and the pending source's.
    public private(set) var translation: HeaderTranslation?
    private var pendingTranslation: HeaderTranslation?
    /// When the pending source's first packet arrived (the wait is bounded from there).
    private var pendingSince: Duration?
    /// The longest a video slot waits for the new source's keyframe: past it, the slot
    /// switches at the next packet and the subscriber's own keyframe request repairs.
    public static let keyframeWait = Duration.seconds(2)

    /// How ``select(source:policy:)`` switches.
    public enum SwitchPolicy: Hashable, Sendable {
        /// At once (audio; emptying a slot).
        case immediately
        /// At the new source's first keyframe packet; until then the current source goes on
        /// when `keepingCurrent` (it may still be forwarded), else nothing does.
        case atKeyframe(keepingCurrent: Bool)
    }
    /// What this slot has forwarded, for its sender reports.
    public private(set) var packetCount: UInt32 = 0
    public private(set) var octetCount: UInt32 = 0

    /// How one source's numbers map onto the slot's.
    struct Run: Hashable, Sendable {
        let source: UInt32
        let sequenceOffset: UInt16
        let timestampOffset: UInt32
        let firstIn: UInt16
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

    /// How far the numbers jump past stale ones: more than aiortc's video jitter buffer holds
    /// (512 packets in aiortc 1.16: it drops them all), at least the gap the SDK's receiver
    /// takes for a new stream (512: it starts again), and more than the 1,000 numbers
    /// libwebrtc's NACK list takes (Chromium clears it and asks for a keyframe rather than
    /// asking for each number).
    public static let staleSkip: UInt16 = 1_024
    /// The next new packet's number jumps by ``staleSkip``.
    private var skipAhead = false
    /// Whether this source already skipped (one jump per source is enough).
    private var skippedSinceSwitch = false
    /// The last padding packet that ended what the slot showed, sent again if it is NACKed.
    public private(set) var closing: RewrittenHeader?
    /// The next source's first packet takes the closing packet's timestamp.
    private var nextRunSharesTimestamp = false

    private var last: (sequenceNumber: UInt16, timestamp: UInt32, arrival: Duration)?
    /// The sequence number of the last packet the slot sent.
    public var lastSequenceNumber: UInt16? { last?.sequenceNumber }
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
    /// source, or waits for one. (`RoutingUpdate` coalesces these across a batch of slots.)
    @discardableResult
    public mutating func select(
        source newSource: UInt32?, policy: SwitchPolicy = .immediately, translation newTranslation: HeaderTranslation? = nil
    ) -> Bool {
        if newSource == (pending ?? source) {
            // The same source, perhaps renumbered (a new offer of the same stack keeps it).
            if pending != nil { pendingTranslation = newTranslation } else { translation = newTranslation }
            // Still waiting, but the source it shows meanwhile may no longer be seen (the
            // subscriber left its room): it stops now, not at the keyframe.
            if pending != nil, source != nil, case .atKeyframe(keepingCurrent: false) = policy {
                switchTo(nil)
                translation = nil
            }
            return false
        }
        if newSource == source {
            // Back to the current source before the other's keyframe came: nothing to wait for.
            pending = nil
            pendingSince = nil
            pendingTranslation = nil
            translation = newTranslation
            return false
        }
        guard let newSource, case .atKeyframe(let keepingCurrent) = policy else {
            pending = nil
            pendingSince = nil
            pendingTranslation = nil
            switchTo(newSource)
            translation = newTranslation
            return newSource != nil && slot.kind.needsKeyframe
        }
        pending = newSource
        pendingSince = nil
        pendingTranslation = newTranslation
        if !keepingCurrent {
            switchTo(nil)
            translation = nil
        }
        return slot.kind.needsKeyframe
    }

    private mutating func switchTo(_ newSource: UInt32?) {
        retireRun()
        source = newSource
        skippedSinceSwitch = false
    }

    private mutating func retireRun() {
        if let run {
            history.append(run)
            if history.count > Self.historyLimit { history.removeFirst() }
        }
        run = nil
    }

    /// The header of a padding packet that ends what the slot showed, once it shows nothing
    /// (its source may no longer be seen): the next number, and a timestamp of its own that the
    /// next source's first frame shares. A receiver that hands a frame on only when a packet of
    /// another timestamp arrives (aiortc) then shows the previous source's last frame now, not
    /// whenever the slot is filled again (seconds later, perhaps from another room), and takes
    /// the padding as part of the next source's first frame, never as a frame of its own (an
    /// empty frame ends aiortc's decoder). Nil while the slot shows a source or has sent nothing.
    public mutating func closingHeader(at now: Duration) -> RewrittenHeader? {
        guard source == nil, let last else { return nil }
        let header = RewrittenHeader(
            ssrc: outgoingSSRC, sequenceNumber: last.sequenceNumber &+ 1, timestamp: last.timestamp &+ step(after: now - last.arrival))
        self.last = (header.sequenceNumber, header.timestamp, now)
        closing = header
        nextRunSharesTimestamp = true
        return header
    }

    /// The subscriber still misses numbers of an earlier source, which will not be repaired:
    /// the next new packet jumps ``staleSkip`` numbers on. Returns whether it will (a video
    /// slot, and not once already since its source changed): the current source should then
    /// be asked for a keyframe, since the receiver drops what it holds.
    public mutating func skipPastStaleNumbers() -> Bool {
        guard slot.kind.needsKeyframe, !skippedSinceSwitch else { return false }
        skippedSinceSwitch = true
        skipAhead = true
        return true
    }

    /// The header a packet from `ssrc` leaves with, or nil to drop it.
    /// `startsKeyframe` says whether the packet opens a keyframe (``KeyframeDetector``); it
    /// matters only to a slot waiting for one.
    public mutating func rewrite(
        ssrc: UInt32, sequenceNumber: UInt16, timestamp: UInt32, payloadLength: Int, arrival: Duration,
        startsKeyframe: Bool = false
    ) -> RewrittenHeader? {
        if ssrc == pending {
            let since = pendingSince ?? arrival
            pendingSince = since
            guard startsKeyframe || arrival - since >= Self.keyframeWait else { return nil }
            pending = nil
            pendingSince = nil
            switchTo(ssrc)
            translation = pendingTranslation
            pendingTranslation = nil
        }
        guard ssrc == source else { return nil }
        let outSequence: UInt16
        let outTimestamp: UInt32
        if var current = run {
            guard SerialNumber.isNewer(sequenceNumber, than: current.highestIn) else {
                // Late (reordered or retransmitted): under the run's mapping, if it is the run's.
                guard SerialNumber.contains(sequenceNumber, from: current.firstIn, through: current.highestIn) else { return nil }
                return RewrittenHeader(
                    ssrc: outgoingSSRC, sequenceNumber: sequenceNumber &+ current.sequenceOffset,
                    timestamp: timestamp &+ current.timestampOffset, translation: translation)
            }
            outTimestamp = timestamp &+ current.timestampOffset
            if skipAhead, let last {
                // The same source on, in a run of its own past the jump.
                skipAhead = false
                retireRun()
                outSequence = last.sequenceNumber &+ Self.staleSkip
                run = Run(
                    source: ssrc, sequenceOffset: outSequence &- sequenceNumber, timestampOffset: current.timestampOffset,
                    firstIn: sequenceNumber, firstOut: outSequence, lastOut: outSequence, highestIn: sequenceNumber)
            } else {
                outSequence = sequenceNumber &+ current.sequenceOffset
                if let last, SerialNumber.isNewer(last.timestamp, than: outTimestamp) { return nil }
                current.highestIn = sequenceNumber
                current.lastOut = outSequence
                run = current
            }
        } else {
            if let last {
                outSequence = last.sequenceNumber &+ (skipAhead ? Self.staleSkip : 1)
                skipAhead = false
                outTimestamp = nextRunSharesTimestamp ? last.timestamp : last.timestamp &+ step(after: arrival - last.arrival)
                nextRunSharesTimestamp = false
            } else {
                outSequence = initialSequenceNumber
                outTimestamp = initialTimestamp
            }
            run = Run(
                source: ssrc, sequenceOffset: outSequence &- sequenceNumber, timestampOffset: outTimestamp &- timestamp,
                firstIn: sequenceNumber, firstOut: outSequence, lastOut: outSequence, highestIn: sequenceNumber)
        }
        last = (outSequence, outTimestamp, arrival)
        packetCount &+= 1
        octetCount &+= UInt32(truncatingIfNeeded: max(payloadLength, 0))
        return RewrittenHeader(ssrc: outgoingSSRC, sequenceNumber: outSequence, timestamp: outTimestamp, translation: translation)
    }

    /// The timestamp step for an arrival gap: the gap in clock ticks, from 1 to a minute's.
    private func step(after gap: Duration) -> UInt32 {
        let rate = UInt64(slot.kind.clockRate)
        let (seconds, attoseconds) = gap.components
        // A gap of no time, or less (an arrival stamped before the last), steps the least.
        guard gap > .zero else { return 1 }
        let whole = min(UInt64(seconds), Self.maximumGapSeconds) * rate
        let fraction = seconds >= Int64(Self.maximumGapSeconds) ? 0 : UInt64(attoseconds / 1_000_000_000) * rate / 1_000_000_000
        return UInt32(max(1, whole + fraction))
    }
}
