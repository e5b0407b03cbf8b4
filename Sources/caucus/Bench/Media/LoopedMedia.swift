// With the package's `Codecs` trait only (CodecsBuild).
#if Codecs
import CaucusCodecs

/// The media every client of `caucus bench media-clients` sends: encoded once, before the run,
/// then sent in a loop by every publisher (as LiveKit's load tester loops pre-encoded files):
/// a second of the tone in 20 ms Opus packets, and two seconds of the moving test pattern in
/// VP8 whose first frame is a keyframe, so a loop (or a keyframe request) starts again there.
/// Encoding costs nothing during the run; decoding, at the receivers, is real.
struct LoopedMedia: Sendable {
    /// 50 Opus packets: one second.
    let audio: [[UInt8]]
    /// `2 × frameRate` VP8 frames, the first a keyframe and no other.
    let video: [VP8Encoder.Frame]
    let frameRate: Int

    static func encode(tone: Tone, pattern: TestPattern, frameRate: Int) throws(CodecError) -> LoopedMedia {
        let opus = try OpusEncoder(channels: 2)
        var audio: [[UInt8]] = []
        for index in 0..<50 { audio.append(try opus.encode(tone.frame(index))) }
        let vp8 = try VP8Encoder(
            width: pattern.size.width, height: pattern.size.height, kilobitsPerSecond: ClientPublisher.kilobitsPerSecond(pattern.size),
            framesPerSecond: Int32(frameRate), keyframeInterval: UInt32(4 * frameRate))
        var video: [VP8Encoder.Frame] = []
        for index in 0..<(2 * frameRate) { video += try vp8.encode(pattern.picture(index), keyframe: index == 0) }
        return LoopedMedia(audio: audio, video: video, frameRate: frameRate)
    }
}
#endif
