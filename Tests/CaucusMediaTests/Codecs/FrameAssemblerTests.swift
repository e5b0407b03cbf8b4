@testable import CaucusMedia
import Testing

/// The depacketiser's rules on hand-built streams: whole frames only, in order, once; gaps
/// reported lost; late and repeated packets change nothing; bounded memory.
@Suite struct FrameAssemblerTests {
    /// A VP8 stream of frames of `sizes` packets each, from `first`, 3,000 ticks apart.
    static func vp8Stream(first: UInt16, sizes: [Int]) -> [[RTPPacket]] {
        var sequencer = RTPPacketSequencer(ssrc: 1, payloadType: 96, firstSequenceNumber: first)
        return sizes.enumerated().map { index, size in
            let frame = [0x11] + Array(repeating: UInt8(index), count: size * 4 - 1)  // inter frames
            let payloads = try! VP8Payload.payloads(for: frame, descriptor: VP8PayloadDescriptor(startsPartition: true), maximumPayloadSize: 5)
            return sequencer.packets(payloads: payloads, timestamp: UInt32(index) * 3_000, markerOnLast: true)
        }
    }

    static func delivered(_ events: [FrameAssemblyEvent]) -> [UInt32] {
        events.compactMap { if case .frame(let frame) = $0 { return frame.timestamp } else { return nil } }
    }

    static func losses(_ events: [FrameAssemblyEvent]) -> [FrameLoss] {
        events.compactMap { if case .lost(let loss) = $0 { return loss } else { return nil } }
    }

    @Test func framesComeWholeInOrderOnceAcrossTheWrap() {
        let stream = Self.vp8Stream(first: 65_530, sizes: [3, 4, 2, 1])
        var assembler = FrameAssembler(codec: .vp8, firstSequenceNumber: 65_530)
        var events: [FrameAssemblyEvent] = []
        // Reversed within the stream, and every packet twice.
        for packet in stream.flatMap({ $0 }).reversed() {
            events += assembler.receive(packet)
            events += assembler.receive(packet)
        }
        #expect(Self.delivered(events) == [0, 3_000, 6_000, 9_000])
        #expect(Self.losses(events).isEmpty)
        #expect(assembler.bufferedPacketCount == 0)
        guard case .frame(let second) = events[1] else { Issue.record("no second frame"); return }
        #expect(second.firstSequenceNumber == 65_533 && second.packetCount == 4)
        #expect(second.bytes == [0x11] + Array(repeating: 1, count: 15))
        #expect(assembler.counters.duplicates + assembler.counters.late == 10)
    }

    @Test func aFrameWithAMissingPacketWaitsThenIsReportedLostAndNeverDelivered() {
        let stream = Self.vp8Stream(first: 100, sizes: [2, 3, 2])
        var assembler = FrameAssembler(codec: .vp8, firstSequenceNumber: 100)
        var events: [FrameAssemblyEvent] = []
        for packet in stream.flatMap({ $0 }) where packet.sequenceNumber != 103 { events += assembler.receive(packet) }
        #expect(Self.delivered(events) == [0], "the third frame waits behind the gap")
        events = assembler.skipMissing()
        #expect(Self.losses(events) == [FrameLoss(firstSequenceNumber: 102, count: 3, timestamps: [3_000])])
        #expect(Self.delivered(events) == [6_000])
        // The missing packet, late: nothing changes.
        #expect(assembler.receive(stream[1][1]).isEmpty)
        #expect(assembler.counters.late == 1)
    }

    @Test func aRetransmittedPacketCompletesTheFramesBehindIt() {
        let stream = Self.vp8Stream(first: 65_535, sizes: [2, 2, 2])
        var assembler = FrameAssembler(codec: .vp8, firstSequenceNumber: 65_535)
        var events: [FrameAssemblyEvent] = []
        for packet in stream.flatMap({ $0 }) where packet.sequenceNumber != 0 { events += assembler.receive(packet) }
        #expect(events.isEmpty)
        events = assembler.receive(stream[0][1])
        #expect(Self.delivered(events) == [0, 3_000, 6_000])
    }

    @Test func theStreamRunningMaximumSpanPastAGapGivesUpOnIt() {
        let stream = Self.vp8Stream(first: 0, sizes: Array(repeating: 2, count: 20))
        var assembler = FrameAssembler(codec: .vp8, firstSequenceNumber: 0, maximumSpan: 16)
        var events: [FrameAssemblyEvent] = []
        for packet in stream.flatMap({ $0 }) where packet.sequenceNumber != 1 {
            events += assembler.receive(packet)
            #expect(assembler.bufferedPacketCount <= 16)
        }
        #expect(Self.losses(events) == [FrameLoss(firstSequenceNumber: 0, count: 2, timestamps: [0])])
        #expect(Self.delivered(events) == (1..<20).map { UInt32($0) * 3_000 })
    }

    @Test func aFarJumpAheadDropsWhatLiesTooFarBehind() {
        var assembler = FrameAssembler(codec: .vp8, firstSequenceNumber: 0, maximumSpan: 16)
        let stream = Self.vp8Stream(first: 0, sizes: [3])
        _ = assembler.receive(stream[0][0])
        let far = Self.vp8Stream(first: 30_000, sizes: [2])
        var events = assembler.receive(far[0][1])
        #expect(Self.losses(events) == [FrameLoss(firstSequenceNumber: 0, count: 30_001 - 15, timestamps: [0])])
        #expect(assembler.bufferedPacketCount == 1)
        // Its start is unknown until a packet shows one: the rest of the range is lost then.
        events = assembler.receive(far[0][0])
        #expect(Self.losses(events) == [FrameLoss(firstSequenceNumber: 30_001 - 15, count: 14, timestamps: [])])
        #expect(Self.delivered(events) == [0])
    }

    @Test func withoutAStartTheFirstDeliveredFrameIsTheFirstKnownStart() {
        let stream = Self.vp8Stream(first: 500, sizes: [2, 2, 2])
        var assembler = FrameAssembler(codec: .vp8)
        var events = assembler.receive(stream[0][1])  // the end of a frame whose start never comes
        #expect(events.isEmpty)
        events = assembler.receive(stream[1][0]) + assembler.receive(stream[1][1]) + assembler.receive(stream[2][1]) + assembler.receive(stream[2][0])
        #expect(Self.losses(events) == [FrameLoss(firstSequenceNumber: 501, count: 1, timestamps: [0])])
        #expect(Self.delivered(events) == [3_000, 6_000])
        #expect(assembler.receive(stream[0][0]).isEmpty, "older than what was resolved")
    }

    @Test func h264ResumesAfterTheFrameWhoseEndItSaw() throws {
        var sequencer = RTPPacketSequencer(ssrc: 1, payloadType: 96, firstSequenceNumber: 10)
        let units: [[[UInt8]]] = [[[0x65] + Array(1...30)], [[0x41, 1, 2]], [[0x41] + Array(1...30)], [[0x41, 3, 4]]]
        let frames = try units.enumerated().map { index, access in
            sequencer.packets(payloads: try H264Payload.payloads(for: access, maximumPayloadSize: 12), timestamp: UInt32(index) * 3_000, markerOnLast: true)
        }
        #expect(frames.map(\.count) == [3, 1, 3, 1])
        var assembler = FrameAssembler(codec: .h264, firstSequenceNumber: 10)
        var events: [FrameAssemblyEvent] = []
        // The first frame loses a middle fragment, the third its last.
        for packet in frames.flatMap({ $0 }) where packet.sequenceNumber != 11 && packet.sequenceNumber != 16 {
            events += assembler.receive(packet)
        }
        #expect(events.isEmpty)
        events = assembler.skipMissing()
        #expect(Self.losses(events) == [FrameLoss(firstSequenceNumber: 10, count: 3, timestamps: [0])])
        #expect(Self.delivered(events) == [3_000])
        guard case .frame(let frame) = events.last else { Issue.record("no frame"); return }
        #expect(frame.bytes == [0, 0, 0, 1, 0x41, 1, 2] && !frame.isKeyframe)
        // The fourth frame's start is known only from the third's end, which never came.
        events = assembler.finish()
        #expect(Self.losses(events) == [FrameLoss(firstSequenceNumber: 14, count: 4, timestamps: [6_000, 9_000])])
    }

    @Test func anH264FrameThatEndsWithoutItsMarkerIsLost() {
        var assembler = FrameAssembler(codec: .h264, firstSequenceNumber: 0)
        let packets = [
            RTPPacket(payloadType: 96, sequenceNumber: 0, timestamp: 0, ssrc: 1, payload: [0x41, 1]),
            RTPPacket(marker: true, payloadType: 96, sequenceNumber: 1, timestamp: 3_000, ssrc: 1, payload: [0x41, 2]),
        ]
        let events = packets.flatMap { assembler.receive($0) }
        #expect(Self.losses(events) == [FrameLoss(firstSequenceNumber: 0, count: 1, timestamps: [0])])
        #expect(Self.delivered(events) == [3_000])
    }

    @Test func opusPacketsAreFramesWhateverTheirMarker() {
        var assembler = FrameAssembler(codec: .opus, firstSequenceNumber: 65_535)
        var sequencer = RTPPacketSequencer(ssrc: 1, payloadType: 111, firstSequenceNumber: 65_535)
        let packets = (0..<4).flatMap { index in
            sequencer.packets(payloads: [[0xFC, UInt8(index)]], timestamp: UInt32(index) * 960, markerOnLast: index == 0)
        }
        var events = assembler.receive(packets[1]) + assembler.receive(packets[0]) + assembler.receive(packets[3])
        #expect(Self.delivered(events) == [0, 960])
        events = assembler.skipMissing()
        #expect(Self.losses(events) == [FrameLoss(firstSequenceNumber: 1, count: 1, timestamps: [])])
        #expect(Self.delivered(events) == [2_880])
    }

    /// Taking a packet as a whole frame unbuffered happens only when nothing else could come
    /// of it: Opus, the next in order, nothing waiting. Otherwise it changes nothing.
    @Test func onlyTheNextWholeFramePacketWithNothingWaitingIsTakenWhole() {
        var unknownStart = FrameAssembler(codec: .opus)
        let beforeAnyStart = unknownStart.takeWholeFrame(sequenceNumber: 5)
        #expect(!beforeAnyStart, "no start known yet")
        var assembler = FrameAssembler(codec: .opus, firstSequenceNumber: 65_535)
        var sequencer = RTPPacketSequencer(ssrc: 1, payloadType: 111, firstSequenceNumber: 65_535)
        let packets = (0..<5).flatMap { index in
            sequencer.packets(payloads: [[0xFC, UInt8(index)]], timestamp: UInt32(index) * 960, markerOnLast: false)
        }
        let notNext = assembler.takeWholeFrame(sequenceNumber: 0)
        #expect(!notNext, "not the next")
        let acrossTheWrap = [assembler.takeWholeFrame(sequenceNumber: 65_535), assembler.takeWholeFrame(sequenceNumber: 0)]
        #expect(acrossTheWrap == [true, true])
        let again = assembler.receive(packets[1])
        #expect(again.isEmpty && assembler.counters.late == 1, "what was taken is resolved")
        let ahead = assembler.receive(packets[3])
        #expect(ahead.isEmpty && assembler.bufferedPacketCount == 1)
        let behindAWait = assembler.takeWholeFrame(sequenceNumber: 1)
        #expect(!behindAWait, "a packet waits in the buffer")
        let filled = assembler.receive(packets[2])
        #expect(Self.delivered(filled) == [1_920, 2_880])
        let next = assembler.takeWholeFrame(sequenceNumber: 3)
        #expect(next)
        var video = FrameAssembler(codec: .vp8, firstSequenceNumber: 10)
        let vp8WithoutItsEnd = video.takeWholeFrame(sequenceNumber: 10, endsFrame: false)
        #expect(!vp8WithoutItsEnd, "a VP8 packet without the marker is not a whole frame")
        let vp8 = video.takeWholeFrame(sequenceNumber: 10, endsFrame: true)
        #expect(vp8, "one with it, found whole by the caller, is")
        var h264 = FrameAssembler(codec: .h264, firstSequenceNumber: 10)
        let avc = h264.takeWholeFrame(sequenceNumber: 10, endsFrame: true)
        #expect(!avc, "H.264 is always reassembled")
    }

    @Test func undecodableDatagramsAreCountedAndChangeNothing() {
        var assembler = FrameAssembler(codec: .vp8, firstSequenceNumber: 0)
        #expect(assembler.receive(datagram: [0x40, 0, 0, 0]).isEmpty)
        #expect(assembler.counters.undecodable == 1)
        let packet = Self.vp8Stream(first: 0, sizes: [1])[0][0]
        #expect(Self.delivered(assembler.receive(datagram: packet.encoded())) == [0])
    }

    @Test func lossRangesContainTheirNumbersAcrossTheWrap() {
        let loss = FrameLoss(firstSequenceNumber: 65_534, count: 3, timestamps: [])
        #expect(loss.contains(65_534) && loss.contains(65_535) && loss.contains(0))
        #expect(!loss.contains(1) && !loss.contains(65_533))
    }
}
