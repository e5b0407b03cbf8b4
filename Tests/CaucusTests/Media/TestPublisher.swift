// The tests are built with the package's Codecs trait (libopus, libvpx), as scripts/test does.
#if !Codecs
#error("build the tests with the Codecs trait: swift build --traits Codecs && swift test --traits Codecs (docs/testing.md)")
#endif
import Caucus
import CaucusCodecs
import Foundation
import NIOConcurrencyHelpers

/// What a test user publishes through the SDK: a real 440 Hz Opus tone in 20 ms frames, and
/// real VP8 of one solid colour at 15 frames a second, a keyframe whenever the server asks
/// (and every two seconds besides), until cancelled; with `share`, a screen share of another
/// colour besides, at 5 frames a second.
enum TestPublisher {
    static let toneHertz = 440.0
    static let colour: (red: UInt8, green: UInt8, blue: UInt8) = (200, 40, 40)
    static let shareColour: (red: UInt8, green: UInt8, blue: UInt8) = (40, 60, 200)
    static let width = 160
    static let height = 120
    /// The tone's level: 12,000 of 32,767 peak is about -11.8 dBov RMS.
    static let audioLevel = -12

    typealias Colour = (red: UInt8, green: UInt8, blue: UInt8)

    static func start(
        _ session: CaucusSession, share: Bool = false, hertz: Double = toneHertz, colour: Colour = colour,
        periodicKeyframes: Bool = true
    ) -> Task<Void, any Error> {
        let audio = session.audioHelper
        let video = session.videoHelper
        let screen = session.shareHelper
        let keyframeWanted = KeyframeFlag()
        let shareKeyframeWanted = KeyframeFlag()
        let requests = video.keyframeRequests
        let shareRequests = screen.keyframeRequests
        let listener = Task { for await _ in requests { keyframeWanted.set() } }
        let shareListener = Task { for await _ in shareRequests { shareKeyframeWanted.set() } }
        return Task {
            defer {
                listener.cancel()
                shareListener.cancel()
            }
            let shareEncoder = try VP8Encoder(width: width, height: height, framesPerSecond: 5)
            let sharePicture = I420Picture(
                width: width, height: height, red: shareColour.red, green: shareColour.green, blue: shareColour.blue)
            var shareFrame = 0
            let opus = try OpusEncoder(channels: 2)
            let vp8 = try VP8Encoder(width: width, height: height, framesPerSecond: 15)
            let picture = I420Picture(width: width, height: height, red: colour.red, green: colour.green, blue: colour.blue)
            var audioFrame = 0
            var videoFrame = 0
            let started = ContinuousClock.now
            while !Task.isCancelled {
                let elapsed = ContinuousClock.now - started
                // Audio keeps its 20 ms pace against the clock; video follows at 15 a second.
                while Duration.milliseconds(20) * audioFrame <= elapsed {
                    let bytes = try opus.encode(tone(frame: audioFrame, hertz: hertz))
                    // Refused while muted: the tone goes on, as a microphone would.
                    let frame = EncodedFrame(
                        codec: .opus, bytes: bytes, timestamp: UInt32(audioFrame * 960), isKeyframe: true, audioLevel: audioLevel)
                    _ = try? audio.send(frame)
                    audioFrame += 1
                }
                if Duration.milliseconds(66) * videoFrame <= elapsed {
                    let keyframe = keyframeWanted.take() || videoFrame == 0 || periodicKeyframes && videoFrame % 30 == 0
                    for frame in try vp8.encode(picture, keyframe: keyframe) {
                        _ = try? video.send(EncodedFrame(codec: .vp8, bytes: frame.data, captureTime: elapsed, isKeyframe: frame.isKeyframe))
                    }
                    videoFrame += 1
                }
                if share, Duration.milliseconds(200) * shareFrame <= elapsed {
                    let keyframe = shareKeyframeWanted.take() || shareFrame % 10 == 0
                    for frame in try shareEncoder.encode(sharePicture, keyframe: keyframe) {
                        _ = try? screen.send(EncodedFrame(codec: .vp8, bytes: frame.data, captureTime: elapsed, isKeyframe: frame.isKeyframe))
                    }
                    shareFrame += 1
                }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    /// 20 ms of a stereo sine at `hertz`, 48 kHz, interleaved, continuing from earlier frames.
    static func tone(frame: Int, hertz: Double = toneHertz) -> [Int16] {
        (0..<960).flatMap { index -> [Int16] in
            let t = Double(frame * 960 + index) / 48_000
            let sample = Int16(12_000 * sin(2 * .pi * hertz * t))
            return [sample, sample]
        }
    }

    /// The frequency of a stereo signal's left channel, from its zero crossings.
    static func frequency(of interleaved: [Int16]) -> Double {
        let left = stride(from: 0, to: interleaved.count, by: 2).map { interleaved[$0] }
        var crossings = 0
        for index in 1..<left.count where (left[index - 1] < 0) != (left[index] < 0) { crossings += 1 }
        return Double(crossings) / 2 / (Double(left.count) / 48_000)
    }
}

/// Set by the keyframe requests' listener, taken by the publisher.
final class KeyframeFlag: Sendable {
    private let value = NIOLockedValueBox(false)
    func set() { value.withLockedValue { $0 = true } }
    func take() -> Bool {
        value.withLockedValue { value in
            defer { value = false }
            return value
        }
    }
}
