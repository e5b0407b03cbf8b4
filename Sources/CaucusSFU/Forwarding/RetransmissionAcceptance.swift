import CaucusMedia

/// Whether a subscriber's stack takes the RTX repairs (RFC 4588) its answer negotiated.
///
/// Negotiating RTX does not make every stack accept it: aiortc routes a packet of an SSRC it
/// has not seen by payload type, so with several video receivers sharing the RTX payload type
/// it drops every RTX packet, though the answer named the RTX SSRC in an FID group. A repair it
/// never takes leaves its gap open, and its jitter buffer waits behind that gap for 512 packets
/// before it gives up and asks for a keyframe: seconds of frozen video after each loss.
///
/// Two things the subscriber sends tell.
/// - **Its receiver reports.** A stack that takes an RTX packet counts it under the RTX SSRC
///   and, from its next report on, has a report block for that SSRC (Chromium and aiortc both
///   do); one that drops RTX packets before any receiver sees them never names it. A report
///   that names an RTX SSRC that carried something (a repair or a probe's repeat) decides at
///   once: it accepts. Once an RTX stream has carried a repair, reports that name the slot's own
///   SSRC but not its RTX SSRC, ``silentReportsNeeded`` of them, ``silentReportSpacing`` apart
///   and the first ``reportSettleTime`` after the stream's first repair (time for it to arrive
///   and be counted, and for a lost one to be asked for and sent again), decide that it
///   refuses. This is what finds a lone loss: aiortc asks for a lost packet once, and a repair
///   it drops is never asked for again.
/// - **Its NACKs.** A repair sent on the RTX stream is remembered with the slot's SSRC and
///   number; the subscriber's next NACK about that slot, once the repair has had
///   ``settleTime`` to arrive, either lists the number again (the repair did not count) or does
///   not (it did). Once ``refusalsNeeded`` repairs were asked again, at three times or more
///   those taken, the subscriber is judged to refuse RTX; once ``acceptedEnough`` were taken,
///   at four times or more those asked again, to accept it. aiortc, which lists every number
///   still missing in each NACK, is found by its fifth NACK under steady loss.
///
/// Either verdict is for good. A subscriber judged to refuse RTX gets its repairs on each
/// slot's own SSRC, as late packets, which every stack takes — and the repairs sent on RTX that
/// no NACK showed taken are sent again that way (``takeUnconfirmedRepairs()``), for the gaps
/// its stack still waits behind. A lossy downlink loses some repairs too, and those are asked
/// again: a stack that takes RTX behind 10 % loss has about one in ten asked again, far from
/// three in four, and one behind 30 % is not misjudged in 200 seeded runs either
/// (`RetransmissionAcceptanceTests`). Misjudged, it would still get its repairs, on the slot's SSRC.
///
/// Pure and bounded: at most ``capacity`` repairs are remembered, the oldest forgotten first,
/// and one entry per RTX stream (one per video slot of the subscriber's plan).
public struct RetransmissionAcceptance: Sendable, Equatable {
    public enum Verdict: Sendable, Equatable {
        /// Not judged yet: repairs go on the RTX stream.
        case undecided
        /// The subscriber takes RTX repairs.
        case accepts
        /// The subscriber drops RTX repairs: send them on the slot's own SSRC.
        case refuses
    }

    public static let capacity = 64
    /// How long a repair has to reach the subscriber before a NACK that lists it again counts.
    public static let settleTime = Duration.milliseconds(20)
    /// Repairs asked again before a refusal is decided.
    public static let refusalsNeeded = 8
    /// Repairs taken, at four times those asked again, before acceptance is decided.
    public static let acceptedEnough = 8
    /// How long after an RTX stream's first repair a report without it begins to count: its
    /// flight, and if it was lost, a NACK and a second repair's round trip.
    public static let reportSettleTime = Duration.milliseconds(500)
    /// Reports without a used RTX stream before a refusal is decided.
    public static let silentReportsNeeded = 2
    /// The least time between two such reports that both count (a stack that sends a report
    /// with each NACK can send several in a few milliseconds).
    public static let silentReportSpacing = Duration.milliseconds(250)

    private struct Repair: Equatable {
        let ssrc: UInt32
        let sequenceNumber: UInt16
        let sentAt: Duration
    }

    public private(set) var verdict = Verdict.undecided
    /// Repairs that a later NACK showed taken, and asked for again.
    public private(set) var taken = 0
    public private(set) var askedAgain = 0
    private var remembered: [Repair] = []

    /// An RTX stream that has carried something, when it first carried a repair, and the
    /// reports since that did not name it.
    private struct UsedStream: Equatable {
        let mediaSSRC: UInt32
        let retransmissionSSRC: UInt32
        var firstRepairAt: Duration?
        var silentReports = 0
        var lastCountedAt: Duration?
    }

    private var usedStreams: [UsedStream] = []
    /// Reports that named a used stream's slot but not the stream, counted towards a refusal.
    public var silentReports: Int { usedStreams.map(\.silentReports).max() ?? 0 }

    public init() {}

    /// Whether repairs should leave on the RTX stream (the answer negotiated it).
    public var sendsRetransmissions: Bool { verdict != .refuses }

    /// A probe's repeat left on `retransmissionSSRC`, the RTX stream of the slot whose own SSRC
    /// is `mediaSSRC`. A report naming the stream then shows that the subscriber takes RTX; but
    /// unlike a repair, a probe starts no wait for such a report: probes come in bursts that a
    /// narrow link may drop whole, and a stack misjudged would not be probed again.
    public mutating func probed(on retransmissionSSRC: UInt32, of mediaSSRC: UInt32) {
        used(retransmissionSSRC, of: mediaSSRC, repairedAt: nil)
    }

    /// Notes that `retransmissionSSRC` carried something (a repair at `repairedAt`, or a probe).
    private mutating func used(_ retransmissionSSRC: UInt32, of mediaSSRC: UInt32, repairedAt: Duration?) {
        guard verdict == .undecided else { return }
        guard let index = usedStreams.firstIndex(where: { $0.retransmissionSSRC == retransmissionSSRC }) else {
            usedStreams.append(UsedStream(mediaSSRC: mediaSSRC, retransmissionSSRC: retransmissionSSRC, firstRepairAt: repairedAt))
            return
        }
        if usedStreams[index].firstRepairAt == nil { usedStreams[index].firstRepairAt = repairedAt }
    }

    /// A report from the subscriber (a receiver report, or the blocks of its sender report)
    /// with blocks about `ssrcs`, at `now`. Returns whether the verdict changed.
    @discardableResult
    public mutating func reported(about ssrcs: [UInt32], at now: Duration) -> Bool {
        guard verdict == .undecided, !usedStreams.isEmpty else { return false }
        if usedStreams.contains(where: { ssrcs.contains($0.retransmissionSSRC) }) {
            decide(.accepts)
            return true
        }
        for index in usedStreams.indices where ssrcs.contains(usedStreams[index].mediaSSRC) {
            let stream = usedStreams[index]
            guard let firstRepairAt = stream.firstRepairAt, now - firstRepairAt >= Self.reportSettleTime else { continue }
            if let last = stream.lastCountedAt, now - last < Self.silentReportSpacing { continue }
            usedStreams[index].silentReports += 1
            usedStreams[index].lastCountedAt = now
            if usedStreams[index].silentReports >= Self.silentReportsNeeded {
                decide(.refuses)
                return true
            }
        }
        return false
    }

    /// Once refusing: the repairs sent on RTX that no NACK showed taken, by slot SSRC, in the
    /// order sent; they are forgotten. Empty otherwise.
    public mutating func takeUnconfirmedRepairs() -> [(ssrc: UInt32, sequenceNumbers: [UInt16])] {
        guard verdict == .refuses else { return [] }
        var grouped: [(ssrc: UInt32, sequenceNumbers: [UInt16])] = []
        for repair in remembered {
            if let index = grouped.firstIndex(where: { $0.ssrc == repair.ssrc }) {
                grouped[index].sequenceNumbers.append(repair.sequenceNumber)
            } else {
                grouped.append((repair.ssrc, [repair.sequenceNumber]))
            }
        }
        remembered = []
        return grouped
    }

    /// A repair of `sequenceNumber` (the slot's own number) left on `ssrc`'s RTX stream,
    /// `retransmissionSSRC`.
    public mutating func repaired(ssrc: UInt32, sequenceNumber: UInt16, on retransmissionSSRC: UInt32, at now: Duration) {
        guard verdict == .undecided else { return }
        used(retransmissionSSRC, of: ssrc, repairedAt: now)
        if remembered.count == Self.capacity { remembered.removeFirst() }
        remembered.append(Repair(ssrc: ssrc, sequenceNumber: sequenceNumber, sentAt: now))
    }

    /// The subscriber NACKed `lost` of `ssrc` at `now`: judges every remembered repair of that
    /// slot that has had time to arrive. Returns whether the verdict changed.
    @discardableResult
    public mutating func nacked(ssrc: UInt32, lost: some Sequence<UInt16>, at now: Duration) -> Bool {
        guard verdict == .undecided, !remembered.isEmpty else { return false }
        remembered.removeAll { repair in
            guard repair.ssrc == ssrc, now - repair.sentAt >= Self.settleTime else { return false }
            if lost.contains(repair.sequenceNumber) { askedAgain += 1 } else { taken += 1 }
            return true
        }
        if askedAgain >= Self.refusalsNeeded, askedAgain >= 3 * taken {
            decide(.refuses)
        } else if taken >= Self.acceptedEnough, taken >= 4 * askedAgain {
            decide(.accepts)
        }
        return verdict != .undecided
    }

    /// Decides for good; what was kept to judge by goes, but for the repairs a refusal sends again.
    private mutating func decide(_ decided: Verdict) {
        verdict = decided
        usedStreams = []
        if decided == .accepts { remembered = [] }
    }
}
