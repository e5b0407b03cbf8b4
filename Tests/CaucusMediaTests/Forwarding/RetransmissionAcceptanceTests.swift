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
                acceptance.repaired(ssrc: slot, sequenceNumber: number, on: rtx, at: now)
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
        for number in UInt16(0)..<16 { acceptance.repaired(ssrc: Self.slot, sequenceNumber: number, on: Self.rtx, at: .zero) }
        acceptance.nacked(ssrc: Self.slot, lost: Array(0..<16), at: RetransmissionAcceptance.settleTime - .milliseconds(1))
        #expect(acceptance.verdict == .undecided && acceptance.askedAgain == 0 && acceptance.taken == 0)
        acceptance.nacked(ssrc: Self.slot, lost: Array(0..<16), at: RetransmissionAcceptance.settleTime)
        #expect(acceptance.verdict == .refuses && acceptance.askedAgain == 16)
    }

    @Test func aNACKAboutAnotherSlotJudgesNothingOfThisOne() {
        var acceptance = RetransmissionAcceptance()
        for number in UInt16(0)..<8 { acceptance.repaired(ssrc: Self.slot, sequenceNumber: number, on: Self.rtx, at: .zero) }
        acceptance.nacked(ssrc: Self.slot + 1, lost: Array(0..<8), at: .seconds(1))
        #expect(acceptance.verdict == .undecided && acceptance.askedAgain == 0 && acceptance.taken == 0)
        acceptance.nacked(ssrc: Self.slot, lost: Array(0..<6), at: .seconds(1))
        #expect(acceptance.verdict == .undecided && acceptance.askedAgain == 6 && acceptance.taken == 2, "6 of 8: not yet")
    }

    @Test func atMostCapacityRepairsAreRemembered() {
        var acceptance = RetransmissionAcceptance()
        let count = RetransmissionAcceptance.capacity + 36
        for number in 0..<count { acceptance.repaired(ssrc: Self.slot, sequenceNumber: UInt16(number), on: Self.rtx, at: .zero) }
        acceptance.nacked(ssrc: Self.slot, lost: [], at: .seconds(1))
        #expect(acceptance.taken == RetransmissionAcceptance.capacity, "the oldest forgotten")
    }

    // Reports ---------------------------------------------------------------------------------

    static let rtx: UInt32 = 7100

    @Test func aReportThatNamesAUsedRTXStreamJudgesItAccepted() {
        var acceptance = RetransmissionAcceptance()
        acceptance.repaired(ssrc: Self.slot, sequenceNumber: 1, on: Self.rtx, at: .zero)
        acceptance.reported(about: [Self.slot], at: .milliseconds(100))
        #expect(acceptance.verdict == .undecided)
        let changed = acceptance.reported(about: [Self.rtx, Self.slot], at: .milliseconds(120))
        #expect(changed)
        let unconfirmed = acceptance.takeUnconfirmedRepairs()
        #expect(acceptance.verdict == .accepts && unconfirmed.isEmpty)
        // For good: reports without it, or NACKs asking again, change nothing now.
        for second in 1...10 { acceptance.reported(about: [Self.slot], at: .seconds(second)) }
        acceptance.nacked(ssrc: Self.slot, lost: [1], at: .seconds(11))
        #expect(acceptance.verdict == .accepts && acceptance.silentReports == 0)
    }

    /// aiortc's lone loss: one repair on RTX, never asked for again; its reports, every second or
    /// so, name the slot and not the RTX stream.
    @Test func reportsThatNeverNameAUsedRTXStreamJudgeARefusalAndGiveBackItsRepairs() {
        var acceptance = RetransmissionAcceptance()
        acceptance.repaired(ssrc: Self.slot, sequenceNumber: 40, on: Self.rtx, at: .zero)
        acceptance.repaired(ssrc: Self.slot + 1, sequenceNumber: 9, on: Self.rtx + 1, at: .zero)
        acceptance.repaired(ssrc: Self.slot, sequenceNumber: 41, on: Self.rtx, at: .zero)
        let early = acceptance.takeUnconfirmedRepairs()
        #expect(early.isEmpty, "nothing given back while undecided")
        acceptance.reported(about: [Self.slot], at: RetransmissionAcceptance.reportSettleTime - .milliseconds(1))
        #expect(acceptance.silentReports == 0, "too soon: the repair may still be on its way")
        acceptance.reported(about: [Self.slot], at: RetransmissionAcceptance.reportSettleTime)
        #expect(acceptance.silentReports == 1 && acceptance.verdict == .undecided)
        let spacing = RetransmissionAcceptance.silentReportSpacing
        acceptance.reported(about: [Self.slot], at: RetransmissionAcceptance.reportSettleTime + spacing - .milliseconds(1))
        #expect(acceptance.silentReports == 1, "a burst of reports counts once")
        let changed = acceptance.reported(about: [Self.slot], at: RetransmissionAcceptance.reportSettleTime + spacing)
        #expect(changed)
        #expect(acceptance.verdict == .refuses && !acceptance.sendsRetransmissions)
        let given = acceptance.takeUnconfirmedRepairs()
        #expect(given.map(\.ssrc) == [Self.slot, Self.slot + 1] && given.map(\.sequenceNumbers) == [[40, 41], [9]])
        let twice = acceptance.takeUnconfirmedRepairs()
        #expect(twice.isEmpty, "given back once")
    }

    @Test func reportsJudgeNothingBeforeAnyRepairOnRTXNorAboutAnotherSlot() {
        var acceptance = RetransmissionAcceptance()
        for second in 1...3 { acceptance.reported(about: [Self.slot], at: .seconds(second)) }
        #expect(acceptance.verdict == .undecided, "no RTX sent yet: nothing to miss")
        // A probe's repeats, which a narrow link may drop whole: no wait for a report starts.
        acceptance.probed(on: Self.rtx, of: Self.slot)
        for second in 5...6 { acceptance.reported(about: [Self.slot], at: .seconds(second)) }
        #expect(acceptance.verdict == .undecided && acceptance.silentReports == 0, "only probes on the stream")
        acceptance.repaired(ssrc: Self.slot, sequenceNumber: 6, on: Self.rtx, at: .seconds(6))
        acceptance.repaired(ssrc: Self.slot, sequenceNumber: 7, on: Self.rtx, at: .seconds(7))
        for second in 8...12 { acceptance.reported(about: [Self.slot + 1, Self.rtx + 1], at: .seconds(second)) }
        #expect(acceptance.verdict == .undecided && acceptance.silentReports == 0, "reports about another slot")
        acceptance.reported(about: [Self.slot], at: .seconds(13))
        #expect(acceptance.silentReports == 1, "settled from the stream's first repair, at 6 s")
    }

    @Test func aReportThatNamesAStreamOnlyProbesUsedJudgesItAccepted() {
        var acceptance = RetransmissionAcceptance()
        acceptance.probed(on: Self.rtx, of: Self.slot)
        acceptance.reported(about: [Self.rtx + 1], at: .milliseconds(100))
        #expect(acceptance.verdict == .undecided, "an RTX SSRC nothing was sent on")
        acceptance.reported(about: [Self.slot, Self.rtx], at: .milliseconds(200))
        #expect(acceptance.verdict == .accepts)
    }

    /// A stack that takes RTX behind a lossy downlink, as Chromium asks: a NACK (with a report
    /// in its compound) per lost packet, asked again each round trip while missing, and a
    /// periodic report each second; a report names the RTX stream once a repair arrived. 10, 20
    /// and 30 % of repairs lost, 200 seeded runs each: never judged refusing.
    @Test func aStackThatTakesRTXBehindALossyDownlinkIsNeverJudgedToRefuseItByItsReports() {
        let roundTrip = Duration.milliseconds(60)
        for loss in [0.1, 0.2, 0.3] {
            for seed in 0..<200 {
                var random = SplitMix(seed: UInt64(seed))
                var acceptance = RetransmissionAcceptance()
                var missing: [UInt16: Duration] = [:]  // number -> when it is asked again
                var tookRTX = false
                var next: UInt16 = 0
                var now = Duration.zero
                while now < .seconds(10), acceptance.verdict == .undecided {
                    now += .milliseconds(20)
                    if random.next() % 10 == 0 { missing[next] = now; next &+= 1 }  // a gap, every 200 ms or so
                    for (number, due) in missing where due <= now {
                        acceptance.reported(about: tookRTX ? [Self.slot, Self.rtx] : [Self.slot], at: now)
                        acceptance.nacked(ssrc: Self.slot, lost: [number], at: now)
                        acceptance.repaired(ssrc: Self.slot, sequenceNumber: number, on: Self.rtx, at: now)
                        if Double(random.next() % 1000) / 1000 >= loss {
                            tookRTX = true
                            missing[number] = nil
                        } else {
                            missing[number] = now + roundTrip
                        }
                    }
                    if now.components.seconds > 0, now.components.attoseconds == 0 {
                        acceptance.reported(about: tookRTX ? [Self.slot, Self.rtx] : [Self.slot], at: now)
                    }
                }
                #expect(acceptance.verdict != .refuses, "seed \(seed) at \(loss) loss")
            }
        }
    }
}
