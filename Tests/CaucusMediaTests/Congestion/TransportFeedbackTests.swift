import CaucusMedia
import CaucusSFU
import Testing

/// Transport-wide congestion control feedback: the packet's bytes, and the recorder that turns
/// arrivals into feedback.
@Suite struct TransportFeedbackTests {
    /// Worked by hand from the draft's layout: base 10, three packets — 10 after 1 ms, 11 lost,
    /// 12 after 75 ms (a two-byte delta).
    @Test func theEncodingIsTheDraftsLayout() throws {
        let feedback = RTCPTransportFeedback(
            senderSSRC: 1, mediaSSRC: 0x0A0B_0C0D, baseSequenceNumber: 10, referenceTime: 0x01_0203, feedbackCount: 7, deltas: [4, nil, 300])
        let expected: [UInt8] = [
            0xAF, 205, 0, 6,  // V=2, P, FMT 15; RTPFB; 6 words follow
            0, 0, 0, 1, 0x0A, 0x0B, 0x0C, 0x0D,  // sender, media SSRC
            0, 10, 0, 3, 0x01, 0x02, 0x03, 7,  // base, count, reference time, feedback count
            0xD2, 0x00,  // status vector, two bits: received small, not received, received large, then nothing
            4, 0x01, 0x2C,  // deltas: 4 (1 ms), 300 (75 ms)
            0, 0, 3,  // padding, its count last
        ]
        #expect(feedback.encoded() == expected)
        let packets = try RTCPPacket.decodeCompound(expected)
        guard case .feedback(let opaque) = try #require(packets.first) else { Issue.record("not feedback: \(packets)"); return }
        #expect(opaque.format == 15)
        let decoded = try #require(RTCPTransportFeedback(senderSSRC: opaque.senderSSRC, mediaSSRC: opaque.mediaSSRC, feedbackControlInformation: opaque.feedbackControlInformation))
        #expect(decoded == feedback)
    }

    /// Run-length and one-bit chunks, as Chromium writes them, read too.
    @Test func otherChunkKindsDecode() throws {
        // 20 received (run length, symbol 1), then a one-bit vector: 14 packets, the first lost.
        let fci: [UInt8] = [0, 0, 0, 34, 0, 0, 1, 0, 0x20, 20, 0b1001_1111, 0xFF] + [UInt8](repeating: 2, count: 33)
        let decoded = try #require(RTCPTransportFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackControlInformation: fci))
        #expect(decoded.deltas.count == 34)
        #expect(decoded.deltas[20] == nil && decoded.deltas.compactMap { $0 }.count == 33)
        #expect(RTCPTransportFeedback(senderSSRC: 1, mediaSSRC: 2, feedbackControlInformation: Array(fci.dropLast())) == nil, "a delta missing")
    }

    @Test func arrivalsBecomeOneFeedbackWithTheMissingMarked() throws {
        var recorder = TransportFeedbackRecorder()
        for (sequence, at) in [(65534, 1000.0), (65535, 1001.0), (1, 1010.25), (0, 1012.0)] as [(UInt16, Double)] {
            recorder.record(sequence, at: .microseconds(Int64(at * 1000)))
        }
        recorder.record(2, at: .milliseconds(1020))
        let first = recorder.feedback(senderSSRC: 1, mediaSSRC: 9)
        let feedback = try #require(first)
        #expect(feedback.baseSequenceNumber == 65534 && feedback.feedbackCount == 0)
        #expect(feedback.referenceTime == 1000 / 64, "64 ms units, rounded down")
        // In sequence order: 1000 ms is 40 ms past the reference (15 × 64 = 960); then +1 ms; 0 at
        // 1012 ms; 1 at 1010.25 ms, before 0 (reordered: a negative delta); 2 at 1020 ms.
        #expect(feedback.deltas == [160, 4, 44, -7, 39])
        let nothingNew = recorder.feedback(senderSSRC: 1, mediaSSRC: 9)
        #expect(!recorder.hasArrivals && nothingNew == nil, "nothing new")

        recorder.record(1, at: .milliseconds(1030))
        #expect(!recorder.hasArrivals, "already reported: not again")
        recorder.record(5, at: .milliseconds(1040))
        let second = recorder.feedback(senderSSRC: 1, mediaSSRC: 9)
        let next = try #require(second)
        #expect(next.baseSequenceNumber == 3 && next.deltas.map { $0 != nil } == [false, false, true] && next.feedbackCount == 1)
    }

    /// Rounding never drifts: the deltas add up to each arrival within one 250 µs tick.
    @Test func deltasAddUpToTheArrivals() throws {
        var recorder = TransportFeedbackRecorder()
        var random = SplitMix(seed: 15)
        var arrival = Duration.milliseconds(5_000)
        var arrivals: [Duration] = []
        for sequence in 0..<500 {
            arrival += .microseconds(Int64(random.next() % 3_000))
            arrivals.append(arrival)
            recorder.record(UInt16(sequence), at: arrival)
        }
        let made = recorder.feedback(senderSSRC: 1, mediaSSRC: 1)
        let feedback = try #require(made)
        var clock = Duration.milliseconds(64) * Int(feedback.referenceTime)
        for (delta, expected) in zip(feedback.deltas, arrivals) {
            clock += .microseconds(250) * Int(delta ?? 0)
            #expect(delta != nil)
            #expect(expected - clock >= .zero && expected - clock < .microseconds(250))
        }
    }

    @Test func aJumpStartsOverAndOneFeedbackIsBounded() throws {
        var recorder = TransportFeedbackRecorder()
        recorder.record(100, at: .seconds(1))
        recorder.record(30_000, at: .seconds(2))
        let afterJump = recorder.feedback(senderSSRC: 1, mediaSSRC: 1)
        let restarted = try #require(afterJump)
        #expect(restarted.baseSequenceNumber == 30_000 && restarted.deltas.count == 1, "a restart, not 29,900 losses")

        recorder.record(30_001, at: .seconds(3))
        recorder.record(30_001 + 5_000, at: .seconds(4))
        let afterGap = recorder.feedback(senderSSRC: 1, mediaSSRC: 1)
        let bounded = try #require(afterGap)
        #expect(bounded.deltas.count == Int(TransportFeedbackRecorder.maximumPacketsPerFeedback))
        #expect(bounded.baseSequenceNumber == UInt16(30_001 + 5_000 - 1_999))
    }
}
