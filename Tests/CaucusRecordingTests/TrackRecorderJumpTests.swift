import CaucusMedia
import Testing

@testable import CaucusRecording

/// A video sender whose RTP timestamps jump back on the same SSRC (a restarted encoder, or a
/// new random base 2^31 ticks or more ahead, which reads as a step back): the recorder's two
/// waits measured in stream time, for a keyframe and for a missing packet, go on from the
/// jump instead of waiting for the stream to come back to where they began.
@Suite struct TrackRecorderJumpTests {
    typealias Frames = TrackRecorderTests

    /// 30 pictures a second (3,000 ticks at 90 kHz) from `base`.
    static func timestamp(_ index: Int, from base: UInt32) -> UInt32 {
        base &+ UInt32(index) * 3_000
    }

    /// 80 VP8 pictures of SSRC 7, one packet each from sequence number 1,000 (15 a second at
    /// the timestamps given), keyframes at 0 and every 2 s.
    static func pictures(timestamp: (Int) -> UInt32) throws -> [RTPPacket] {
        var sequencer = RTPPacketSequencer(ssrc: 7, payloadType: 96, firstSequenceNumber: 1_000)
        return try (0..<80).map { index in
            let frame = index % 30 == 0 ? Frames.keyframe(width: 64, height: 48) : Frames.interframe
            let payloads = try VP8Payload.payloads(for: frame, descriptor: VP8PayloadDescriptor(startsPartition: true), maximumPayloadSize: 1_000)
            return sequencer.packets(payloads: payloads, timestamp: timestamp(index), markerOnLast: true)[0]
        }
    }

    /// Waiting for a keyframe, the recorder asks every half second of the stream. After the
    /// jump it asks at once and every half second from there, until a keyframe comes.
    @Test(arguments: [UInt32(100_000), UInt32(3_000_000_000)])
    func aKeyframeIsAskedForAgainAfterTheTimestampsJump(to base: UInt32) throws {
        var recorder = TrackRecorder(ssrc: 7, codec: .vp8, trackUID: 5)
        let clock = try Frames.clock()
        #expect(recorder.start() == [.requestKeyframe])
        var requests: [Int] = []
        // 1 s of interframes from RTP 2,000,000, then 2 s from `base`: nothing to write. The
        // start's request is dated by frame 0; asked again at 15, half a second on, then at the
        // jump (30) and every 15 frames after it.
        for index in 0..<90 {
            let timestamp = index < 30 ? Self.timestamp(index, from: 2_000_000) : Self.timestamp(index - 30, from: base)
            let actions = recorder.receive(Frames.frame(Frames.interframe, at: timestamp), clock: clock)
            if actions.contains(.requestKeyframe) { requests.append(index) }
            #expect(Frames.clusters(actions).isEmpty)
        }
        #expect(requests == [15, 30, 45, 60, 75], "asked at \(requests)")
        let key = recorder.receive(Frames.frame(Frames.keyframe(width: 64, height: 48), at: Self.timestamp(60, from: base)), clock: clock)
        #expect(Frames.starts(key).count == 1 && recorder.counters.framesWritten == 1)
    }

    /// A packet lost just before the jump: the gap is given up on a second of the stream after
    /// the jump (a keyframe asked for), not held until the reassembly's whole span runs out.
    @Test(arguments: [UInt32(100_000), UInt32(3_000_000_000)])
    func aGapIsGivenUpOnAfterTheTimestampsJump(to base: UInt32) throws {
        var recorder = TrackRecorder(ssrc: 7, codec: .vp8, trackUID: 5, firstSequenceNumber: 1_000)
        let clock = try Frames.clock()
        // From picture 12 on, the timestamps start again from `base`.
        let packets = try Self.pictures { index in index < 12 ? 2_000_000 + UInt32(index) * 6_000 : base &+ UInt32(index - 12) * 6_000 }
        var requestedAt: Int?
        for index in 0..<80 where index != 10 {
            let actions = recorder.receive(packets[index], clock: clock)
            if requestedAt == nil, actions.contains(.requestKeyframe) { requestedAt = index }
        }
        // The jump at picture 12 starts the count; a second later is picture 27, and the
        // first packet past it 28's.
        #expect(requestedAt == 28, "the gap given up on a second after the jump, not at \(String(describing: requestedAt))")
        #expect(recorder.counters.losses == 1)
        #expect(recorder.counters.framesWritten > 10, "written again from the keyframe at picture 30")
    }

    /// A repair that comes after its gap was given up on is late, not a jump back: a second gap
    /// that opens meanwhile still gets its whole second. (Taken for a jump, the late packet's
    /// old timestamp would start the count a second back, and the next packet would give the
    /// new gap up at once.)
    @Test func aLateRepairIsNotTakenForAJumpBack() throws {
        var recorder = TrackRecorder(ssrc: 7, codec: .vp8, trackUID: 5, firstSequenceNumber: 1_000)
        let clock = try Frames.clock()
        let packets = try Self.pictures { index in 2_000_000 + UInt32(index) * 6_000 }
        // 10 is lost (given up at 25, a second past 9); 42 too, and 10 comes after 43, late.
        let order = Array(0..<10) + Array(11...41) + [43, 10] + Array(44..<80)
        var lossesAt: [Int] = []
        for index in order {
            let losses = recorder.counters.losses
            _ = recorder.receive(packets[index], clock: clock)
            if recorder.counters.losses > losses { lossesAt.append(index) }
        }
        // 42's wait starts at 41; a second later is picture 56, and the first packet past it 57's.
        #expect(lossesAt == [25, 57], "gaps given up at \(lossesAt)")
        #expect(recorder.counters.framesWritten > 40)
    }
}
