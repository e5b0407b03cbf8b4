import CaucusMedia
import CaucusSFU
import PropertyBased
import Testing

/// `RTCPTransportFeedbackView` reads a transport-cc feedback in place as the draft's layout
/// reads it plainly (`reference`, below): the same fields and deltas, or nil for the same
/// malformed information, wherever in a datagram the information lies.
@Suite struct TransportFeedbackViewTests {
    /// The fields and deltas, read the plain way: every status symbol into an array, then
    /// every delta (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1).
    struct Plain: Equatable {
        var base: UInt16
        var referenceTime: UInt32
        var feedbackCount: UInt8
        var deltas: [Int16?]
    }

    static func reference(_ fci: [UInt8]) -> Plain? {
        guard fci.count >= 8 else { return nil }
        let count = Int(fci[2]) << 8 | Int(fci[3])
        var symbols: [UInt8] = []
        var offset = 8
        while symbols.count < count {
            guard offset + 2 <= fci.count else { return nil }
            let chunk = Int(fci[offset]) << 8 | Int(fci[offset + 1])
            offset += 2
            switch chunk >> 14 {
            case 0, 1: symbols += Array(repeating: UInt8(chunk >> 13 & 3), count: min(chunk & 0x1FFF, count - symbols.count))
            case 2: symbols += (0..<14).map { UInt8(chunk >> (13 - $0) & 1) }.prefix(count - symbols.count)
            default: symbols += (0..<7).map { UInt8(chunk >> (12 - 2 * $0) & 3) }.prefix(count - symbols.count)
            }
        }
        var deltas: [Int16?] = []
        for symbol in symbols {
            switch symbol {
            case 0: deltas.append(nil)
            case 1:
                guard offset + 1 <= fci.count else { return nil }
                deltas.append(Int16(fci[offset]))
                offset += 1
            case 2:
                guard offset + 2 <= fci.count else { return nil }
                deltas.append(Int16(bitPattern: UInt16(fci[offset]) << 8 | UInt16(fci[offset + 1])))
                offset += 2
            default: return nil
            }
        }
        return Plain(
            base: UInt16(fci[0]) << 8 | UInt16(fci[1]), referenceTime: UInt32(fci[4]) << 16 | UInt32(fci[5]) << 8 | UInt32(fci[6]),
            feedbackCount: fci[7], deltas: deltas)
    }

    static func read(_ fci: ArraySlice<UInt8>) -> Plain? {
        RTCPTransportFeedbackView(feedbackControlInformation: fci).map {
            Plain(base: $0.baseSequenceNumber, referenceTime: $0.referenceTime, feedbackCount: $0.feedbackCount, deltas: Array($0))
        }
    }

    @Test func randomInformationIsReadAsThePlainReadingReadsIt() async {
        // A status count of 0–40 or 256–296 (a high byte too), then bytes: the chunks' kinds
        // and symbols at random, deltas and trailing bytes at random, cut anywhere; placed
        // after a random prefix.
        await propertyCheck(count: 3_000, input: Gen.uint8().array(of: 0...60), Gen.uint8().array(of: 0...12), Gen.int(in: 0...40), Gen.bool) {
            bytes, prefix, count, long in
            var fci = Array(bytes.prefix(8))
            if fci.count >= 4 { fci[2] = long ? 1 : 0; fci[3] = UInt8(count) }
            fci += bytes.dropFirst(8)
            let datagram = prefix + fci
            let read = Self.read(datagram[prefix.count...])
            #expect(read == Self.reference(fci))
        }
    }

    @Test func wellFormedFeedbackIsReadInFull() async {
        // Made by the encoder: every one reads back, deltas of both sizes and losses among them.
        await propertyCheck(count: 1_000, input: Gen.int(in: -40...300).array(of: 0...80), Gen.uint64()) { values, seed in
            var random = SplitMix(seed: seed)
            let deltas: [Int16?] = values.map { $0 < -20 ? nil : Int16($0) * 100 }
            let feedback = RTCPTransportFeedback(
                senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: UInt16(truncatingIfNeeded: random.next()), referenceTime: 77, feedbackCount: 3, deltas: deltas)
            let view = SimulatedDownlink.readInPlace(feedback)
            #expect(Array(view) == deltas)
            #expect(view.baseSequenceNumber == feedback.baseSequenceNumber && view.statusCount == deltas.count)
        }
    }

    /// Run-length chunks with a run of 0 are skipped; a reserved symbol refuses the feedback.
    /// A status count past ``RTCPTransportFeedbackView/maximumStatusCount`` is refused, however
    /// few bytes say it (eight run-length chunks of 8,191 losses and one of 7: 65,535 numbers
    /// in 18 bytes); one at the limit is read.
    @Test func aStatusCountPastTheLimitIsRefused() {
        let huge: [UInt8] = [0, 5, 0xFF, 0xFF, 0, 0, 2, 9] + Array([UInt8](repeating: 0, count: 8).enumerated().flatMap { _ in [0x1F, 0xFF] }) + [0x00, 0x07]
        #expect(RTCPTransportFeedbackView(feedbackControlInformation: huge[...]) == nil)
        let limit = RTCPTransportFeedbackView.maximumStatusCount
        let atLimit: [UInt8] = [0, 5, UInt8(limit >> 8), UInt8(limit & 0xFF), 0, 0, 2, 9, 0x1F, 0xFF, 0x00, 0x01]
        #expect(RTCPTransportFeedbackView(feedbackControlInformation: atLimit[...])?.statusCount == limit)
    }

    @Test func emptyRunsAreSkippedAndReservedSymbolsRefused() {
        let header: [UInt8] = [0, 5, 0, 3, 0, 0, 2, 9]
        let fci = header + [0x00, 0x00, 0x20, 0x03, 1, 2, 3]
        #expect(Self.read(fci[...])?.deltas == [1, 2, 3])
        #expect(Self.read((header + [0x60, 0x03, 1, 2, 3])[...]) == nil, "symbol 3, reserved")
        #expect(Self.read((header + [0x00, 0x00])[...]) == nil, "chunks run out")
    }
}
