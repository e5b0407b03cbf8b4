import CaucusMedia
import Testing

@testable import CaucusRecording

/// The per-track recorder as a pure machine: it waits for the clock, starts video at a
/// keyframe (asking for one), leaves gaps, and starts a new file on a resolution change.
@Suite struct TrackRecorderTests {
    static func keyframe(width: Int, height: Int, filler: UInt8 = 0) -> [UInt8] {
        [0x50, 0x02, 0x00, 0x9D, 0x01, 0x2A, UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8), filler]
    }

    static let interframe: [UInt8] = [0x31, 0x02, 0x00, 0x07]

    static func frame(_ bytes: [UInt8], at timestamp: UInt32) -> TrackRecorder.Frame {
        TrackRecorder.Frame(timestamp: timestamp, isKeyframe: VP8Payload.isKeyframe(bytes), bytes: bytes)
    }

    /// A clock on which RTP timestamp 0 of SSRC 7 (90 kHz) is at 5 s.
    static func clock(clockRate: Int = 90_000) throws -> LocationClock {
        var clock = LocationClock()
        try clock.receive(
            RTCPSenderReport(ssrc: 7, ntpTimestamp: 1_000 << 32, rtpTimestamp: 0, packetCount: 0, octetCount: 0),
            publisher: "p", clockRate: clockRate, arrival: 5_000_000)
        return clock
    }

    /// The whole clusters handed over to be written.
    static func clusters(_ actions: [TrackRecorderAction]) -> [[UInt8]] {
        actions.compactMap { if case .writeCluster(let bytes, _) = $0 { return bytes } else { return nil } }
    }

    /// What a muxer writes for these blocks (time in ms, bytes), as clusters.
    static func expectedClusters(_ blocks: [(Int64, [UInt8])], keyframes: Bool = true) throws -> [[UInt8]] {
        var muxer = try WebMMuxer(tracks: [WebMTrack(number: 1, uid: 5, codec: .opus())])
        var clusters: [[UInt8]] = []
        for (time, bytes) in blocks {
            let output = try muxer.append(track: 1, timestamp: time, keyframe: keyframes, frame: bytes)
            if output.startsCluster { clusters.append([]) }
            clusters[clusters.count - 1] += output.bytes
        }
        return clusters
    }

    static func starts(_ actions: [TrackRecorderAction]) -> [RecordingFileStart] {
        actions.compactMap { if case .startFile(let start) = $0 { return start } else { return nil } }
    }

    @Test func videoAsksForAKeyframeAtOnceAndStartsAtIt() throws {
        var recorder = TrackRecorder(ssrc: 7, codec: .vp8, trackUID: 5)
        let clock = try Self.clock()
        #expect(recorder.start() == [.requestKeyframe])
        var requests = 0
        // 1.5 s of frames that depend on a keyframe nobody recorded: dropped, asked again every 0.5 s.
        for index in 0..<45 {
            let actions = recorder.receive(Self.frame(Self.interframe, at: UInt32(index) * 3_000), clock: clock)
            requests += actions.filter { $0 == .requestKeyframe }.count
            #expect(Self.clusters(actions).isEmpty)
        }
        #expect(requests == 2 && recorder.counters.framesWaitingForKeyframe == 45)
        let actions = recorder.receive(Self.frame(Self.keyframe(width: 320, height: 180), at: 135_000), clock: clock)
        let start = try #require(Self.starts(actions).first)
        #expect(start.index == 0 && start.codec == .vp8(width: 320, height: 180))
        #expect(start.clockOffset == 6_500_000, "5 s plus 135,000 ticks of 90 kHz")
        #expect(Self.clusters(actions).isEmpty && recorder.counters.framesWritten == 1, "held in the cluster being filled")
        let next = recorder.receive(Self.frame(Self.interframe, at: 138_000), clock: clock)
        #expect(next.isEmpty && recorder.counters.framesWritten == 2)
        let end = recorder.finish(clock: clock)
        let cluster = try #require(Self.clusters(end).first)
        #expect(cluster.suffix(Self.interframe.count) == Self.interframe[...], "the last cluster is written at the end")
        #expect(end.last == .endFile(RecordingFileEnd(index: 0, durationMilliseconds: 33, reason: .finished)))
    }

    @Test func framesWaitForTheClockThenKeepTheirSpacing() throws {
        var recorder = TrackRecorder(ssrc: 7, codec: .opus, trackUID: 5, maximumHeldFrames: 3)
        var clock = LocationClock()
        for index in 0..<5 {
            #expect(recorder.receive(Self.frame([0xFC, UInt8(index)], at: UInt32(index) * 960), clock: clock).isEmpty)
        }
        #expect(recorder.counters.framesWaitingForClock == 2, "only the newest 3 are held")
        try clock.receive(
            RTCPSenderReport(ssrc: 7, ntpTimestamp: 1_000 << 32, rtpTimestamp: 0, packetCount: 0, octetCount: 0),
            publisher: "p", clockRate: 48_000, arrival: 0)
        let actions = recorder.receive(Self.frame([0xFC, 5], at: 5 * 960), clock: clock)
        #expect(Self.starts(actions).map(\.clockOffset) == [40_000], "frame 2, 40 ms after RTP 0")
        let expected = try Self.expectedClusters([(0, [0xFC, 2]), (20, [0xFC, 3]), (40, [0xFC, 4]), (60, [0xFC, 5])])
        #expect(Self.clusters(actions + recorder.finish(clock: clock)) == expected)
    }

    /// A publisher who sends no usable sender report: what waits for the clock is bounded in
    /// bytes too, not only in frames (each of which may be a megabyte of video).
    @Test func framesWaitingForTheClockAreBoundedInBytes() throws {
        var recorder = TrackRecorder(ssrc: 7, codec: .vp8, trackUID: 5, maximumHeldBytes: 1_000_000)
        var clock = LocationClock()
        let large = Self.keyframe(width: 640, height: 480) + [UInt8](repeating: 0x55, count: 300_000)
        for index in 0..<10 {
            _ = recorder.receive(Self.frame(large, at: UInt32(index) * 3_000), clock: clock)
        }
        #expect(recorder.counters.framesWaitingForClock == 7, "three of 300 kB fit in a megabyte")
        try clock.receive(
            RTCPSenderReport(ssrc: 7, ntpTimestamp: 1_000 << 32, rtpTimestamp: 0, packetCount: 0, octetCount: 0),
            publisher: "p", clockRate: 90_000, arrival: 0)
        let actions = recorder.receive(Self.frame(large, at: 10 * 3_000), clock: clock) + recorder.finish(clock: clock)
        #expect(recorder.counters.framesWritten == 4, "the three held and the one that came with the clock")
        #expect(Self.starts(actions).map(\.clockOffset) == [7 * 3_000 * 1_000 / 90], "the file starts at the oldest frame held")
    }

    @Test func anAudioGapStaysAGap() throws {
        var recorder = TrackRecorder(ssrc: 7, codec: .opus, trackUID: 5)
        let clock = try Self.clock(clockRate: 48_000)
        _ = recorder.receive(Self.frame([0xFC], at: 0), clock: clock)
        #expect(recorder.frameLost().isEmpty, "audio asks for nothing")
        let late = recorder.receive(Self.frame([0xFC], at: 48_000 * 3), clock: clock)
        let expected = try Self.expectedClusters([(0, [0xFC]), (3_000, [0xFC])])
        #expect(Self.clusters(late) == [expected[0]], "the block 3 s later starts a cluster: the first is done")
        #expect(Self.clusters(recorder.finish(clock: clock)) == [expected[1]])
    }

    /// A better sender report moves the clock's estimate 10 ms back in the middle of a file:
    /// the file keeps the sender's 20 ms spacing rather than one 10 ms step (``FrameTiming``).
    @Test func aBetterReportDoesNotJitterTheFile() throws {
        var recorder = TrackRecorder(ssrc: 7, codec: .opus, trackUID: 5)
        var clock = try Self.clock(clockRate: 48_000)
        var actions: [TrackRecorderAction] = []
        for index in 0..<10 { actions += recorder.receive(Self.frame([0xFC, UInt8(index)], at: UInt32(index) * 960), clock: clock) }
        // The second report, a second later, says RTP 48,000 was captured at 1,000.99 s: the
        // first was stamped 10 ms late, so every timestamp now maps 10 ms earlier.
        try clock.receive(
            RTCPSenderReport(ssrc: 7, ntpTimestamp: (1_001 << 32) - (1 << 32) / 100, rtpTimestamp: 48_000, packetCount: 0, octetCount: 0),
            publisher: "p", clockRate: 48_000, arrival: 6_000_000)
        #expect(clock.time(ofRTP: 10 * 960, ssrc: 7) == 5_190_000)
        for index in 10..<20 { actions += recorder.receive(Self.frame([0xFC, UInt8(index)], at: UInt32(index) * 960), clock: clock) }
        let expected = try Self.expectedClusters((0..<20).map { (Int64($0) * 20, [0xFC, UInt8($0)]) })
        #expect(Self.clusters(actions + recorder.finish(clock: clock)) == expected)
    }

    /// A lost audio packet holds what follows back only ``TrackRecorder/audioPatience``
    /// packets: then the gap is left and the frames behind it are written.
    @Test func audioGivesUpOnAMissingPacketAfterHalfASecond() throws {
        var recorder = TrackRecorder(ssrc: 7, codec: .opus, trackUID: 5, firstSequenceNumber: 0)
        let clock = try Self.clock(clockRate: 48_000)
        var sequencer = RTPPacketSequencer(ssrc: 7, payloadType: 111, firstSequenceNumber: 0)
        let packets = (0..<40).map { sequencer.packets(payloads: [[0xFC, UInt8($0)]], timestamp: UInt32($0) * 960, markerOnLast: false)[0] }
        for packet in packets.prefix(5) { _ = recorder.receive(packet, clock: clock) }
        var writtenAt: [Int] = []
        for index in 6..<40 {
            _ = recorder.receive(packets[index], clock: clock)
            writtenAt.append(recorder.counters.framesWritten)
        }
        #expect(writtenAt.first == 5, "packet 5 is missing: 6 waits")
        let resumed = try #require(writtenAt.firstIndex { $0 > 5 })
        #expect(resumed + 6 == 5 + TrackRecorder.audioPatience, "given up once the stream runs \(TrackRecorder.audioPatience) past it")
        #expect(recorder.counters.losses == 1 && writtenAt.last == 39)
    }

    /// A video packet that never comes is given up on once the stream runs a second past it
    /// (time for a resend), not after the assembler's whole span (1,024 packets: over a
    /// minute of a low-rate stream): the loss asks for a keyframe, and the next one is written.
    @Test func videoGivesUpOnAMissingPacketAfterASecond() throws {
        var recorder = TrackRecorder(ssrc: 7, codec: .vp8, trackUID: 5)
        let clock = try Self.clock()
        var sequencer = RTPPacketSequencer(ssrc: 7, payloadType: 96, firstSequenceNumber: 1_000)
        // 15 pictures a second, each in one packet; keyframes at 0 and 2 s.
        let packets = try (0..<60).map { index in
            let frame = index % 30 == 0 ? Self.keyframe(width: 64, height: 48) : Self.interframe
            let payloads = try VP8Payload.payloads(for: frame, descriptor: VP8PayloadDescriptor(startsPartition: true), maximumPayloadSize: 1_000)
            return sequencer.packets(payloads: payloads, timestamp: UInt32(index) * 6_000, markerOnLast: true)[0]
        }
        var requestedAt: Int?
        var writtenAt: [Int: Int] = [:]
        for index in 0..<60 where index != 10 {
            let actions = recorder.receive(packets[index], clock: clock)
            if requestedAt == nil, actions.contains(.requestKeyframe) { requestedAt = index }
            writtenAt[index] = recorder.counters.framesWritten
        }
        // Frame 9 came at 0.6 s; 1 s later is frame 24; the first packet past that is 25's.
        #expect(requestedAt == 25, "the gap given up on a second into it")
        #expect(recorder.counters.losses == 1 && writtenAt[24] == 10, "frames 0–9 written, the rest waiting behind the gap")
        #expect(writtenAt[29] == 10 && writtenAt[30] == 11, "written again from the keyframe at 2 s")
        #expect(writtenAt[59] == 40)
    }

    @Test func aLostVideoFrameWaitsForTheNextKeyframe() throws {
        var recorder = TrackRecorder(ssrc: 7, codec: .vp8, trackUID: 5)
        let clock = try Self.clock()
        _ = recorder.receive(Self.frame(Self.keyframe(width: 64, height: 64), at: 0), clock: clock)
        #expect(recorder.frameLost() == [.requestKeyframe])
        #expect(recorder.receive(Self.frame(Self.interframe, at: 6_000), clock: clock).isEmpty)
        #expect(recorder.counters.framesWritten == 1 && recorder.counters.framesWaitingForKeyframe == 1)
        let resumed = recorder.receive(Self.frame(Self.keyframe(width: 64, height: 64), at: 9_000), clock: clock)
        #expect(Self.starts(resumed).isEmpty, "the same size goes on in the same file")
        #expect(Self.clusters(resumed).count == 1, "the keyframe starts a cluster, which hands over the one before")
        #expect(recorder.counters.framesWritten == 2)
    }

    @Test func aNewResolutionStartsANewFile() throws {
        var recorder = TrackRecorder(ssrc: 7, codec: .vp8, trackUID: 5)
        let clock = try Self.clock()
        _ = recorder.receive(Self.frame(Self.keyframe(width: 64, height: 64), at: 0), clock: clock)
        _ = recorder.receive(Self.frame(Self.interframe, at: 9_000), clock: clock)
        let actions = recorder.receive(Self.frame(Self.keyframe(width: 128, height: 72), at: 18_000), clock: clock)
        #expect(actions.count == 3)
        #expect(Self.clusters([actions[0]]).count == 1, "the first file's last cluster")
        #expect(actions[1] == .endFile(RecordingFileEnd(index: 0, durationMilliseconds: 100, reason: .resolutionChanged)))
        let start = try #require(Self.starts(actions).first)
        #expect(start.index == 1 && start.codec == .vp8(width: 128, height: 72) && start.clockOffset == 5_200_000)
        let end = recorder.finish(clock: clock)
        #expect(Self.clusters(end).count == 1 && end.last == .endFile(RecordingFileEnd(index: 1, durationMilliseconds: 0, reason: .finished)))
        #expect(recorder.receive(Self.frame(Self.keyframe(width: 64, height: 64), at: 27_000), clock: clock).isEmpty, "nothing after the end")
    }

    /// A clock on which SSRC 7's RTP timestamp `rtp` (at `clockRate`) was captured at
    /// `seconds` of the sender's clock, reported at `arrival` µs: `clock()`'s sender two
    /// seconds back when `seconds` is 999 for RTP 48,000 at 48 kHz.
    static func report(_ clock: inout LocationClock, rtp: UInt32, seconds: UInt64, clockRate: Int, arrival: Int64) throws {
        try clock.receive(
            RTCPSenderReport(ssrc: 7, ntpTimestamp: seconds << 32, rtpTimestamp: rtp, packetCount: 0, octetCount: 0),
            publisher: "p", clockRate: clockRate, arrival: arrival)
    }

    /// The sender's clock steps two seconds back: written on in one file, the next two seconds
    /// of frames would be 1 ms apart. The file ends there, and the next starts at the clock's
    /// new time, its frames at their own spacing.
    @Test func aSendersClockJumpingBackEndsTheFileAndStartsTheNext() throws {
        var recorder = TrackRecorder(ssrc: 7, codec: .opus, trackUID: 5)
        var clock = try Self.clock(clockRate: 48_000)
        var actions: [TrackRecorderAction] = []
        for index in 0..<10 { actions += recorder.receive(Self.frame([0xFC, UInt8(index)], at: UInt32(index) * 960), clock: clock) }
        try Self.report(&clock, rtp: 48_000, seconds: 999, clockRate: 48_000, arrival: 6_000_000)
        let mapped = try #require(clock.time(ofRTP: 10 * 960, ssrc: 7))
        #expect(mapped < 5_200_000 - LocationClock.lateReportLimit, "the clock maps frame 10 before frame 9: \(mapped)")
        var after: [TrackRecorderAction] = []
        for index in 10..<20 { after += recorder.receive(Self.frame([0xFC, UInt8(index)], at: UInt32(index) * 960), clock: clock) }
        #expect(after.contains(.endFile(RecordingFileEnd(index: 0, durationMilliseconds: 180, reason: .clockJumpedBack))))
        let start = try #require(Self.starts(after).first)
        #expect(start.index == 1 && start.clockOffset == mapped)
        // Each file holds its own ten frames, 20 ms apart.
        let (first, second) = (actions + after.prefix { if case .endFile = $0 { false } else { true } }, after)
        #expect(Self.clusters(first) == (try Self.expectedClusters((0..<10).map { (Int64($0) * 20, [0xFC, UInt8($0)]) })))
        let end = recorder.finish(clock: clock)
        #expect(Self.clusters(Array(second.drop { if case .startFile = $0 { false } else { true } }) + end)
            == (try Self.expectedClusters((10..<20).map { (Int64($0 - 10) * 20, [0xFC, UInt8($0)]) })))
        #expect(end.last == .endFile(RecordingFileEnd(index: 1, durationMilliseconds: 180, reason: .finished)))
    }

    /// Video whose sender's clock jumps back goes on in the next file from a keyframe, asked
    /// for at once; the frames before it are dropped, as after a loss.
    @Test func videoGoesOnFromAKeyframeAfterTheSendersClockJumpsBack() throws {
        var recorder = TrackRecorder(ssrc: 7, codec: .vp8, trackUID: 5)
        var clock = try Self.clock()
        _ = recorder.receive(Self.frame(Self.keyframe(width: 64, height: 64), at: 0), clock: clock)
        _ = recorder.receive(Self.frame(Self.interframe, at: 9_000), clock: clock)
        try Self.report(&clock, rtp: 90_000, seconds: 999, clockRate: 90_000, arrival: 6_000_000)
        let jumped = recorder.receive(Self.frame(Self.interframe, at: 18_000), clock: clock)
        #expect(Self.clusters(jumped).count == 1, "the first file's last cluster")
        #expect(Array(jumped.dropFirst()) == [
            .endFile(RecordingFileEnd(index: 0, durationMilliseconds: 100, reason: .clockJumpedBack)), .requestKeyframe,
        ])
        #expect(recorder.receive(Self.frame(Self.interframe, at: 27_000), clock: clock).isEmpty)
        #expect(recorder.counters.framesWaitingForKeyframe == 2 && !recorder.isWriting)
        let resumed = recorder.receive(Self.frame(Self.keyframe(width: 64, height: 64), at: 36_000), clock: clock)
        let start = try #require(Self.starts(resumed).first)
        #expect(start.index == 1 && start.clockOffset == clock.time(ofRTP: 36_000, ssrc: 7))
        #expect(recorder.counters.framesWritten == 3)
    }

    /// VP8 from RTP: a frame split over packets, reordered, reassembled by CaucusMedia's assembler.
    @Test func rtpPacketsAreAssembledIntoFrames() throws {
        var recorder = TrackRecorder(ssrc: 7, codec: .vp8, trackUID: 5, firstSequenceNumber: 100)
        let clock = try Self.clock()
        let key = Self.keyframe(width: 32, height: 32) + Array(repeating: 0x55, count: 40)
        var sequencer = RTPPacketSequencer(ssrc: 7, payloadType: 96, firstSequenceNumber: 100)
        let payloads = try VP8Payload.payloads(for: key, descriptor: VP8PayloadDescriptor(startsPartition: true), maximumPayloadSize: 20)
        let packets = sequencer.packets(payloads: payloads, timestamp: 900, markerOnLast: true)
        #expect(packets.count == 3)
        var actions: [TrackRecorderAction] = []
        for packet in [packets[1], packets[0], packets[2]] { actions += recorder.receive(packet, clock: clock) }
        #expect(recorder.counters.framesWritten == 1)
        var stranger = packets[0]
        stranger.ssrc = 8
        #expect(recorder.receive(stranger, clock: clock).isEmpty && recorder.counters.refused == 1)
        let clusters = Self.clusters(actions + recorder.finish(clock: clock))
        #expect(clusters.count == 1 && clusters[0].suffix(key.count) == key[...])
    }

    /// Opus datagrams in order go straight into the cluster, bypassing reassembly: whatever
    /// the arrival order (in order, reordered, a loss, a duplicate, a late one, padding, a
    /// header extension, a stranger's packet), the datagram path writes exactly what the
    /// packet path writes, action for action.
    @Test func theDatagramPathWritesWhatThePacketPathWrites() throws {
        let clock = try Self.clock(clockRate: 48_000)
        var sequencer = RTPPacketSequencer(ssrc: 7, payloadType: 111, firstSequenceNumber: 65_530)
        var packets = (0..<120).map { index in
            sequencer.packets(payloads: [[0xFC, UInt8(index % 251), 0x11]], timestamp: UInt32(index) * 960, markerOnLast: false)[0]
        }
        packets[3].headerExtension = RTPHeaderExtension(elements: [RTPHeaderExtensionElement(id: 1, data: [0x80])])
        packets[4].paddingLength = 4
        var stranger = packets[9]
        stranger.ssrc = 8
        // Arrival: 10 and 11 swapped, 20 lost, 30 twice, 40 late (after 45), a stranger.
        var order = Array(0..<120).filter { $0 != 20 && $0 != 40 }
        order.swapAt(10, 11)
        order.insert(30, at: order.firstIndex(of: 31)!)
        order.insert(40, at: order.firstIndex(of: 46)!)
        var byPacket = TrackRecorder(ssrc: 7, codec: .opus, trackUID: 5)
        var byDatagram = TrackRecorder(ssrc: 7, codec: .opus, trackUID: 5)
        var (packetActions, datagramActions): ([TrackRecorderAction], [TrackRecorderAction]) = ([], [])
        for (step, index) in order.enumerated() {
            var packet = packets[index]
            if step == 50 { packet = stranger }
            packetActions += byPacket.receive(packet, clock: clock)
            datagramActions += byDatagram.receive(datagram: packet.encoded(), clock: clock)
        }
        packetActions += byPacket.finish(clock: clock)
        datagramActions += byDatagram.finish(clock: clock)
        #expect(datagramActions == packetActions)
        #expect(byDatagram.counters == byPacket.counters)
        // Lost: 20, and 51 (whose place the stranger took).
        #expect(byDatagram.counters.framesWritten == 118 && byDatagram.counters.losses == 2, "\(byDatagram.counters)")
        #expect(byDatagram.counters.refused == 1)
        #expect(Self.clusters(datagramActions).count >= 2)
        let afterTheEnd = byDatagram.receive(datagram: [0x80, 0x6F], clock: clock)
        #expect(afterTheEnd.isEmpty, "not a packet, after the end")
    }

    /// The same for VP8, whose pictures in one packet take the direct path and whose larger
    /// ones are reassembled: keyframes and interframes, one packet and three, a reorder
    /// within a frame and across frames, a lost packet (the file waits for the next
    /// keyframe), a duplicate, a malformed one-packet frame (a keyframe without its start code).
    @Test func theDatagramPathWritesWhatThePacketPathWritesForVP8() throws {
        let clock = try Self.clock()
        var sequencer = RTPPacketSequencer(ssrc: 7, payloadType: 96, firstSequenceNumber: 65_500)
        var packets: [RTPPacket] = []
        for index in 0..<60 {
            let keyframe = index % 20 == 0
            let size = index % 3 == 0 ? 50 : 12
            var frame = keyframe ? Self.keyframe(width: 64, height: 48, filler: UInt8(index)) : Self.interframe + [UInt8(index)]
            frame += Array(repeating: 0x55, count: size)
            if index == 33 { frame = [0x50, 0x02, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00, 0x30, 0x00, 0x01] }  // a keyframe without a start code
            let payloads = try VP8Payload.payloads(for: frame, descriptor: VP8PayloadDescriptor(startsPartition: true), maximumPayloadSize: 30)
            packets += sequencer.packets(payloads: payloads, timestamp: UInt32(index) * 3_000, markerOnLast: true)
        }
        var order = Array(packets.indices)
        order.swapAt(5, 6)
        order.swapAt(40, 44)
        order.remove(at: 70)
        order.insert(order[30], at: 31)
        var byPacket = TrackRecorder(ssrc: 7, codec: .vp8, trackUID: 5)
        var byDatagram = TrackRecorder(ssrc: 7, codec: .vp8, trackUID: 5)
        var (packetActions, datagramActions) = (byPacket.start(), byDatagram.start())
        for index in order {
            packetActions += byPacket.receive(packets[index], clock: clock)
            datagramActions += byDatagram.receive(datagram: packets[index].encoded(), clock: clock)
        }
        packetActions += byPacket.finish(clock: clock)
        datagramActions += byDatagram.finish(clock: clock)
        #expect(datagramActions == packetActions)
        #expect(byDatagram.counters == byPacket.counters)
        #expect(byDatagram.counters.losses >= 2 && byDatagram.counters.framesWaitingForKeyframe > 0, "\(byDatagram.counters)")
        #expect(byDatagram.counters.framesWritten > 30)
    }
}
