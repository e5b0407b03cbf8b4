import CaucusMedia

/// Whether a subscriber's stack takes the RTX repairs (RFC 4588) its answer negotiated.
///
/// Negotiating RTX does not make every stack accept it: aiortc routes a packet of an SSRC it
/// has not seen by payload type, so with several video receivers sharing the RTX payload type
/// it drops every RTX packet, though the answer named the RTX SSRC in an FID group. A repair it
/// never takes leaves its gap open, and its jitter buffer waits behind that gap for 512 packets
/// before it gives up and asks for a keyframe: seconds of frozen video after each loss.
///
/// The subscriber's own NACKs tell. A repair sent on the RTX stream is remembered with the
/// slot's SSRC and number; the subscriber's next NACK about that slot, once the repair has had
/// ``settleTime`` to arrive, either lists the number again (the repair did not count) or does
/// not (it did). Once ``refusalsNeeded`` repairs were asked again, at three times or more those
/// taken, the subscriber is judged to refuse RTX, for good: its repairs go on each slot's own
/// SSRC, as late packets, which every stack takes. Once ``acceptedEnough`` were taken, at four
/// times or more those asked again, it is judged to accept RTX and nothing more is remembered.
/// A lossy downlink loses some repairs too, and those are asked again: a stack that takes RTX
/// behind 10 % loss has about one in ten asked again, far from three in four, and one behind
/// 30 % is not misjudged in 200 seeded runs either (`RetransmissionAcceptanceTests`). Misjudged,
/// it would still get its repairs, on the slot's SSRC. aiortc, which lists every number still
/// missing in each NACK, is found by its fifth NACK.
///
/// Pure and bounded: at most ``capacity`` repairs are remembered, the oldest forgotten first.
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

    public init() {}

    /// Whether repairs should leave on the RTX stream (the answer negotiated it).
    public var sendsRetransmissions: Bool { verdict != .refuses }

    /// A repair of `sequenceNumber` (the slot's own number) left on `ssrc`'s RTX stream.
    public mutating func repaired(ssrc: UInt32, sequenceNumber: UInt16, at now: Duration) {
        guard verdict == .undecided else { return }
        if remembered.count == Self.capacity { remembered.removeFirst() }
        remembered.append(Repair(ssrc: ssrc, sequenceNumber: sequenceNumber, sentAt: now))
    }

    /// The subscriber NACKed `lost` of `ssrc` at `now`: judges every remembered repair of that
    /// slot that has had time to arrive. Returns whether the verdict changed.
    @discardableResult
    public mutating func nacked(ssrc: UInt32, lost: [UInt16], at now: Duration) -> Bool {
        guard verdict == .undecided, !remembered.isEmpty else { return false }
        remembered.removeAll { repair in
            guard repair.ssrc == ssrc, now - repair.sentAt >= Self.settleTime else { return false }
            if lost.contains(repair.sequenceNumber) { askedAgain += 1 } else { taken += 1 }
            return true
        }
        if askedAgain >= Self.refusalsNeeded, askedAgain >= 3 * taken {
            verdict = .refuses
        } else if taken >= Self.acceptedEnough, taken >= 4 * askedAgain {
            verdict = .accepts
        }
        if verdict != .undecided { remembered = [] }
        return verdict != .undecided
    }
}
