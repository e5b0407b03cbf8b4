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

    static func writes(_ actions: [TrackRecorderAction]) -> [WebMMuxer.Output] {
        actions.compactMap { if case .write(let output) = $0 { return output } else { return nil } }
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
            #expect(Self.writes(actions).isEmpty)
        }
        #expect(requests == 2 && recorder.counters.framesWaitingForKeyframe == 45)
        let actions = recorder.receive(Self.frame(Self.keyframe(width: 320, height: 180), at: 135_000), clock: clock)
        let start = try #require(Self.starts(actions).first)
        #expect(start.index == 0 && start.codec == .vp8(width: 320, height: 180))
        #expect(start.clockOffset == 6_500_000, "5 s plus 135,000 ticks of 90 kHz")
        #expect(Self.writes(actions).map(\.startsCluster) == [true])
        let next = recorder.receive(Self.frame(Self.interframe, at: 138_000), clock: clock)
        #expect(Self.writes(next).count == 1 && recorder.counters.framesWritten == 2)
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
        var muxer = try WebMMuxer(tracks: [WebMTrack(number: 1, uid: 5, codec: .opus())])
        let expected = try [(0, 2), (20, 3), (40, 4), (60, 5)].map { try muxer.append(track: 1, timestamp: Int64($0.0), keyframe: true, frame: [0xFC, UInt8($0.1)]) }
        #expect(Self.writes(actions) == expected)
    }

    @Test func anAudioGapStaysAGap() throws {
        var recorder = TrackRecorder(ssrc: 7, codec: .opus, trackUID: 5)
        let clock = try Self.clock(clockRate: 48_000)
        _ = recorder.receive(Self.frame([0xFC], at: 0), clock: clock)
        #expect(recorder.frameLost().isEmpty, "audio asks for nothing")
        let late = Self.writes(recorder.receive(Self.frame([0xFC], at: 48_000 * 3), clock: clock))
        var muxer = try WebMMuxer(tracks: [WebMTrack(number: 1, uid: 5, codec: .opus())])
        _ = try muxer.append(track: 1, timestamp: 0, keyframe: true, frame: [0xFC])
        #expect(late == [try muxer.append(track: 1, timestamp: 3_000, keyframe: true, frame: [0xFC])])
    }

    @Test func aLostVideoFrameWaitsForTheNextKeyframe() throws {
        var recorder = TrackRecorder(ssrc: 7, codec: .vp8, trackUID: 5)
        let clock = try Self.clock()
        _ = recorder.receive(Self.frame(Self.keyframe(width: 64, height: 64), at: 0), clock: clock)
        #expect(recorder.frameLost() == [.requestKeyframe])
        #expect(Self.writes(recorder.receive(Self.frame(Self.interframe, at: 6_000), clock: clock)).isEmpty)
        let resumed = recorder.receive(Self.frame(Self.keyframe(width: 64, height: 64), at: 9_000), clock: clock)
        #expect(Self.starts(resumed).isEmpty, "the same size goes on in the same file")
        #expect(Self.writes(resumed).map(\.startsCluster) == [true])
    }

    @Test func aNewResolutionStartsANewFile() throws {
        var recorder = TrackRecorder(ssrc: 7, codec: .vp8, trackUID: 5)
        let clock = try Self.clock()
        _ = recorder.receive(Self.frame(Self.keyframe(width: 64, height: 64), at: 0), clock: clock)
        _ = recorder.receive(Self.frame(Self.interframe, at: 9_000), clock: clock)
        let actions = recorder.receive(Self.frame(Self.keyframe(width: 128, height: 72), at: 18_000), clock: clock)
        #expect(actions.count == 3)
        #expect(actions.first == .endFile(RecordingFileEnd(index: 0, durationMilliseconds: 100, reason: .resolutionChanged)))
        let start = try #require(Self.starts(actions).first)
        #expect(start.index == 1 && start.codec == .vp8(width: 128, height: 72) && start.clockOffset == 5_200_000)
        let end = recorder.finish(clock: clock)
        #expect(end == [.endFile(RecordingFileEnd(index: 1, durationMilliseconds: 0, reason: .finished))])
        #expect(recorder.receive(Self.frame(Self.keyframe(width: 64, height: 64), at: 27_000), clock: clock).isEmpty, "nothing after the end")
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
        var writes: [WebMMuxer.Output] = []
        for packet in [packets[1], packets[0], packets[2]] { writes += Self.writes(recorder.receive(packet, clock: clock)) }
        #expect(writes.count == 1 && writes[0].bytes.suffix(key.count) == key[...])
        var stranger = packets[0]
        stranger.ssrc = 8
        #expect(recorder.receive(stranger, clock: clock).isEmpty && recorder.counters.refused == 1)
    }
}
