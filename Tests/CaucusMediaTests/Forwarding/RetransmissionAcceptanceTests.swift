import Testing

@testable import CaucusMedia
@testable import CaucusSFU

/// Whether a subscriber takes RTX repairs, judged by its NACKs: a stack that drops them (aiortc
/// with several video receivers) is found within a few NACKs; one that takes them behind a lossy
/// downlink is not misjudged.
@Suite struct RetransmissionAcceptanceTests {
    static let slot: UInt32 = 7000

    /// A receiver as aiortc's NACK generator is: every NACK lists every number still missing.
    /// `takes(number)` says whether a repair of it arrived and was taken. Returns the verdict
    /// after each NACK, and the NACKs sent.
    static func run(
        gaps: Int, spacing: Duration = .milliseconds(100), takes: (UInt16) -> Bool
    ) -> (verdicts: [RetransmissionAcceptance.Verdict], acceptance: RetransmissionAcceptance) {
        var acceptance = RetransmissionAcceptance()
        var missing: Set<UInt16> = []
        var verdicts: [RetransmissionAcceptance.Verdict] = []
        var now = Duration.zero
        for gap in 0..<gaps {
            now += spacing
            missing.insert(UInt16(gap * 10))
            let lost = missing.sorted()
            acceptance.nacked(ssrc: slot, lost: lost, at: now)
            verdicts.append(acceptance.verdict)
            for number in lost where acceptance.sendsRetransmissions {
                acceptance.repaired(ssrc: slot, sequenceNumber: number, at: now)
                if takes(number) { missing.remove(number) }
            }
        }
        return (verdicts, acceptance)
    }

    @Test func aStackThatDropsEveryRTXRepairIsFoundWithinAFewNACKs() {
        let (verdicts, acceptance) = Self.run(gaps: 10) { _ in false }
        let found = verdicts.firstIndex(of: .refuses)
        #expect(found != nil && found! <= 4, "refused by the fifth NACK: \(verdicts)")
        #expect(verdicts.suffix(from: found!).allSatisfy { $0 == .refuses }, "for good")
        #expect(!acceptance.sendsRetransmissions)
    }

    @Test func aStackThatTakesRTXIsJudgedToAcceptIt() {
        let (verdicts, acceptance) = Self.run(gaps: 12) { _ in true }
        #expect(verdicts.last == .accepts && acceptance.sendsRetransmissions)
        #expect(!verdicts.contains(.refuses))
    }

    /// 10, 20 and 30 % of repairs lost on the way, for 200 seeded runs each: never judged refusing.
    @Test func aStackThatTakesRTXBehindALossyDownlinkIsNeverJudgedToRefuseIt() {
        for loss in [0.1, 0.2, 0.3] {
            for seed in 0..<200 {
                var random = SplitMix(seed: UInt64(seed))
                let (verdicts, _) = Self.run(gaps: 40) { _ in Double(random.next() % 1000) / 1000 >= loss }
                #expect(!verdicts.contains(.refuses), "seed \(seed) at \(loss) loss: \(verdicts)")
            }
        }
    }

    @Test func aNACKBeforeTheRepairCouldArriveJudgesNothing() {
        var acceptance = RetransmissionAcceptance()
        for number in UInt16(0)..<16 { acceptance.repaired(ssrc: Self.slot, sequenceNumber: number, at: .zero) }
        acceptance.nacked(ssrc: Self.slot, lost: Array(0..<16), at: RetransmissionAcceptance.settleTime - .milliseconds(1))
        #expect(acceptance.verdict == .undecided && acceptance.askedAgain == 0 && acceptance.taken == 0)
        acceptance.nacked(ssrc: Self.slot, lost: Array(0..<16), at: RetransmissionAcceptance.settleTime)
        #expect(acceptance.verdict == .refuses && acceptance.askedAgain == 16)
    }

    @Test func aNACKAboutAnotherSlotJudgesNothingOfThisOne() {
        var acceptance = RetransmissionAcceptance()
        for number in UInt16(0)..<8 { acceptance.repaired(ssrc: Self.slot, sequenceNumber: number, at: .zero) }
        acceptance.nacked(ssrc: Self.slot + 1, lost: Array(0..<8), at: .seconds(1))
        #expect(acceptance.verdict == .undecided && acceptance.askedAgain == 0 && acceptance.taken == 0)
        acceptance.nacked(ssrc: Self.slot, lost: Array(0..<6), at: .seconds(1))
        #expect(acceptance.verdict == .undecided && acceptance.askedAgain == 6 && acceptance.taken == 2, "6 of 8: not yet")
    }

    @Test func atMostCapacityRepairsAreRemembered() {
        var acceptance = RetransmissionAcceptance()
        let count = RetransmissionAcceptance.capacity + 36
        for number in 0..<count { acceptance.repaired(ssrc: Self.slot, sequenceNumber: UInt16(number), at: .zero) }
        acceptance.nacked(ssrc: Self.slot, lost: [], at: .seconds(1))
        #expect(acceptance.taken == RetransmissionAcceptance.capacity, "the oldest forgotten")
    }
}
