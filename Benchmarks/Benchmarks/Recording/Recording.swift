import Benchmark
import BenchmarkSupport
import CaucusMedia
import CaucusRecording

/// The recording writer's per-packet work without its I/O or its lookups: each packet read in
/// place from one buffer of datagrams back to back (as the writer reads a batch) and handed to
/// its track's ``TrackRecorder`` (RTP header read, reassembly's order check, timing on the
/// location's clock, the block muxed into the cluster being filled). A completed cluster is
/// dropped, not written. Counts allocations and time per packet.
///
/// The shapes: **400 tracks**, the 200 publishers of `caucus bench media --users 200 --rooms 50
/// --video --record` (Opus at 50 packets/s, VP8 at 15 one-packet frames/s with a keyframe every
/// 2 s), their packets interleaved as they arrive; their 200 audio tracks alone; and one
/// publisher of each, whose state stays in the caches. What a shape of many tracks costs beyond
/// its one-publisher twin is what many tracks' state, read cold, costs per packet.
let benchmarks: @Sendable () -> Void = {
    AllocationCounting.configure()
    // Each run of the closure takes the next thousand packets of a stream made up front (a
    // stream cannot be replayed: its timestamps would go back and end the files).
    let configuration = Benchmark.Configuration(maxIterations: RecordedTraffic.runs)
    for (name, traffic) in [
        ("recorder: 400 tracks (200 publishers' audio and video), packets interleaved", RecordedTraffic.interleaved),
        ("recorder: 200 audio tracks, packets interleaved", RecordedTraffic.audioInterleaved),
        ("recorder: one publisher's audio and video", RecordedTraffic.onePublisher),
        ("recorder: one audio track", RecordedTraffic.oneTrack),
    ] {
        Benchmark(name, configuration: configuration) { benchmark in try traffic.record(benchmark) }
    }
}

/// Recorders for `publishers` publishers (each an Opus track and, with `video`, a VP8 one),
/// every track placed on the clock by a sender report, and their packets made up front.
// Safe to send: the benchmark runs its closures one after another on one thread, and nothing
// else touches an instance.
final class RecordedTraffic: @unchecked Sendable {
    static let runs = 100
    /// Packets made up front: a thousand for each measured run, and some for the warm-up.
    private static let packetsMade = (runs + 10) * 1_000

    static let interleaved = RecordedTraffic(publishers: 200, video: true)
    static let audioInterleaved = RecordedTraffic(publishers: 200, video: false)
    static let onePublisher = RecordedTraffic(publishers: 1, video: true)
    static let oneTrack = RecordedTraffic(publishers: 1, video: false)

    private var recorders: [TrackRecorder]
    private let mappings: [LocationClock.Mapping?]
    private let clock: LocationClock
    private var datagrams: [UInt8] = []
    /// Per packet: its track (index into `recorders`) and its place in `datagrams`.
    private var packets: [(track: Int, bytes: Range<Int>)] = []
    private var next = 0

    private init(publishers: Int, video: Bool) {
        var clock = LocationClock()
        var recorders: [TrackRecorder] = []
        for publisher in 0..<publishers {
            for (kind, codec) in [(0, TrackRecorder.Codec.opus), (1, .vp8)] where kind == 0 || video {
                let ssrc = UInt32(0x1000 * (kind + 1) + publisher)
                try! clock.receive(
                    RTCPSenderReport(ssrc: ssrc, ntpTimestamp: 0xE000_0000_0000_0000, rtpTimestamp: 0, packetCount: 0, octetCount: 0),
                    publisher: "u\(publisher)", clockRate: codec.clockRate, arrival: 0)
                var recorder = TrackRecorder(ssrc: ssrc, codec: codec, trackUID: UInt64(ssrc), trackName: "u\(publisher)")
                _ = recorder.start()
                recorders.append(recorder)
            }
        }
        self.clock = clock
        self.recorders = recorders
        mappings = recorders.map { clock.mapping(of: $0.ssrc) }
        // 20 ms steps: every audio track sends a packet; a third of the video tracks, each
        // in turn, a frame (15 frames a second), a keyframe every 30th.
        var step = 0
        while packets.count < Self.packetsMade {
            for (track, recorder) in recorders.enumerated() {
                let isVideo = recorder.codec == .vp8
                if isVideo, (step + track) % 3 != 0 { continue }
                let count = isVideo ? (step + track) / 3 : step
                let timestamp = UInt32(truncatingIfNeeded: isVideo ? count * 6_000 : count * 960)
                let payload = isVideo ? Self.vp8Payload(keyframe: count % 30 == 0, bytes: 950) : [UInt8](repeating: 0xFC, count: 110)
                let packet = RTPPacket(
                    marker: isVideo, payloadType: isVideo ? 96 : 111, sequenceNumber: UInt16(truncatingIfNeeded: count), timestamp: timestamp,
                    ssrc: recorder.ssrc, payload: payload)
                let start = datagrams.count
                datagrams += packet.encoded()
                packets.append((track, start..<datagrams.count))
            }
            step += 1
        }
    }

    /// A VP8 payload: its descriptor (S set, a picture ID), then a frame of `bytes` bytes
    /// whose tag says key or not; a key frame declares 320×240 after the start code.
    private static func vp8Payload(keyframe: Bool, bytes: Int) -> [UInt8] {
        var frame = [UInt8](repeating: 0x55, count: bytes)
        frame[0] = keyframe ? 0x10 : 0x11
        if keyframe { frame.replaceSubrange(3..<10, with: [0x9D, 0x01, 0x2A, 0x40, 0x01, 0xF0, 0x00]) }
        return VP8PayloadDescriptor(startsPartition: true, pictureID: .long(1)).encoded() + frame
    }

    /// The next `benchmark.scaledIterations` packets, each to its recorder, measured.
    func record(_ benchmark: Benchmark) throws {
        let count = benchmark.scaledIterations.count
        guard next + count <= packets.count else { fatalError("made \(packets.count) packets; more runs than \(Self.runs) + 10") }
        let clock = clock
        benchmark.startMeasurement()
        for index in next..<(next + count) {
            let (track, bytes) = packets[index]
            // A completed cluster's action is dropped with its bytes: the writer would write it.
            blackHole(recorders[track].receive(datagram: datagrams[bytes], mapping: mappings[track]) { clock })
        }
        benchmark.stopMeasurement()
        next += count
        let written = recorders.reduce(0) { $0 + $1.counters.framesWritten }
        guard written > 0, recorders.allSatisfy({ $0.counters.refused == 0 }) else {
            fatalError("the recorders must write what they are given: \(written) frames, \(recorders.map(\.counters.refused)) refused")
        }
    }
}
