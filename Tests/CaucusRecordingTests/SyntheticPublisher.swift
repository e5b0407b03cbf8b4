// The recording tests encode real Opus and VP8: build them with the Codecs trait, as scripts/test does.
#if !Codecs
#error("build the tests with the Codecs trait: swift build --traits Codecs && swift test --traits Codecs (docs/testing.md)")
#endif
import CaucusCodecs
import CaucusMedia
import Foundation

/// A publisher as the server sees it: real Opus and VP8 (libopus, libvpx) in RTP packets, and
/// RTCP sender reports pairing its own wall clock (NTP) with its RTP clocks, each input stamped
/// with its arrival on the location's clock. It "claps" at given real instants: a white video
/// frame and a 100 ms tone burst; the rest is black and silent.
struct SyntheticPublisher {
    var name: String
    var audioSSRC: UInt32
    var videoSSRC: UInt32
    var audioBase: UInt32
    var videoBase: UInt32
    /// The publisher's wall clock (NTP seconds) at real time 0: publishers' clocks disagree.
    var wallClockAtZero: Double
    var audio: ClosedRange<Double>?
    var video: ClosedRange<Double>?
    /// Real instants of the claps (multiples of 1/15 s, so a video frame falls on each).
    var claps: [Double] = []
    /// From this real time on, video is 320×240 instead of 160×120 (a new encoder, a keyframe).
    var largerVideoFrom: Double?
    /// One-way network delay of packets and reports.
    var delay = 0.030
    /// H.264 access units (Annex B, from x264) to send as the video instead of VP8, one per
    /// frame, looped: the pictures are the encoder's, not black and white.
    var h264: [[UInt8]]?

    enum Input {
        case packet(RTPPacket)
        case report(RTCPSenderReport, publisher: String, clockRate: Int)
    }

    struct Timed {
        /// Arrival on the location's clock, seconds.
        var arrival: Double
        var input: Input
    }

    static let framesPerSecond = 15.0

    func inputs() throws -> [Timed] {
        var timed: [Timed] = []
        if let audio {
            let encoder = try OpusEncoder(channels: 2, bitsPerSecond: 48_000)
            var sequencer = RTPPacketSequencer(ssrc: audioSSRC, payloadType: 111, firstSequenceNumber: 1_000)
            var index = Int((audio.lowerBound * 50).rounded())
            while Double(index) / 50 <= audio.upperBound {
                let time = Double(index) / 50
                let samples = (0..<960).flatMap { sample -> [Int16] in
                    let t = time + Double(sample) / 48_000
                    let loud = claps.contains { t >= $0 && t < $0 + 0.1 }
                    let value = loud ? Int16(16_000 * sin(2 * .pi * 1_000 * t)) : 0
                    return [value, value]
                }
                let payload = try encoder.encode(samples)
                let timestamp = audioBase &+ UInt32(index * 960)
                for packet in sequencer.packets(payloads: [payload], timestamp: timestamp, markerOnLast: false) {
                    timed.append(Timed(arrival: time + delay, input: .packet(packet)))
                }
                index += 1
            }
            timed += reports(ssrc: audioSSRC, base: audioBase, clockRate: 48_000, over: audio)
        }
        if let video, let h264 {
            var sequencer = RTPPacketSequencer(ssrc: videoSSRC, payloadType: 102, firstSequenceNumber: 50_000)
            var index = Int((video.lowerBound * Self.framesPerSecond).rounded())
            while Double(index) / Self.framesPerSecond <= video.upperBound {
                let time = Double(index) / Self.framesPerSecond
                let payloads = try H264Payload.payloads(for: H264AnnexB.nalUnits(in: h264[index % h264.count]), maximumPayloadSize: 1_100)
                for packet in sequencer.packets(payloads: payloads, timestamp: videoBase &+ UInt32(index * 6_000), markerOnLast: true) {
                    timed.append(Timed(arrival: time + delay, input: .packet(packet)))
                }
                index += 1
            }
            timed += reports(ssrc: videoSSRC, base: videoBase, clockRate: 90_000, over: video)
        } else if let video {
            let small = try VP8Encoder(width: 160, height: 120, kilobitsPerSecond: 300, framesPerSecond: 15)
            var large: VP8Encoder?
            var sequencer = RTPPacketSequencer(ssrc: videoSSRC, payloadType: 96, firstSequenceNumber: 50_000)
            var pictureID: UInt16 = 0
            var index = Int((video.lowerBound * Self.framesPerSecond).rounded())
            while Double(index) / Self.framesPerSecond <= video.upperBound {
                let time = Double(index) / Self.framesPerSecond
                let white = claps.contains { abs($0 - time) < 0.001 }
                var encoder = small
                if let from = largerVideoFrom, time >= from {
                    if large == nil { large = try VP8Encoder(width: 320, height: 240, kilobitsPerSecond: 500, framesPerSecond: 15) }
                    encoder = large ?? small
                }
                let level: UInt8 = white ? 255 : 0
                let picture = I420Picture(width: encoder.width, height: encoder.height, red: level, green: level, blue: level)
                let timestamp = videoBase &+ UInt32(index * 6_000)
                for frame in try encoder.encode(picture) {
                    let payloads = try VP8Payload.payloads(
                        for: frame.data, descriptor: VP8PayloadDescriptor(startsPartition: true, pictureID: .long(pictureID)),
                        maximumPayloadSize: 1_100)
                    pictureID = (pictureID &+ 1) & 0x7FFF
                    for packet in sequencer.packets(payloads: payloads, timestamp: timestamp, markerOnLast: true) {
                        timed.append(Timed(arrival: time + delay, input: .packet(packet)))
                    }
                }
                index += 1
            }
            timed += reports(ssrc: videoSSRC, base: videoBase, clockRate: 90_000, over: video)
        }
        return timed
    }

    /// A sender report a second, the first 0.25 s in (so frames wait for it); every other one
    /// held up 15 ms more in the network.
    private func reports(ssrc: UInt32, base: UInt32, clockRate: Int, over range: ClosedRange<Double>) -> [Timed] {
        stride(from: range.lowerBound + 0.25, through: range.upperBound, by: 1.0).enumerated().map { number, time in
            let wall = wallClockAtZero + time
            let whole = UInt64(wall)
            let ntp = whole << 32 | UInt64((wall - Double(whole)) * 4_294_967_296)
            let rtp = base &+ UInt32(truncatingIfNeeded: Int64((time * Double(clockRate)).rounded()))
            let report = RTCPSenderReport(ssrc: ssrc, ntpTimestamp: ntp, rtpTimestamp: rtp, packetCount: 0, octetCount: 0)
            return Timed(arrival: time + delay + (number % 2 == 1 ? 0.015 : 0), input: .report(report, publisher: name, clockRate: clockRate))
        }
    }
}
