// With the package's `Codecs` trait only (CodecsBuild).
#if Codecs
import Caucus
import CaucusCodecs
import NIOConcurrencyHelpers

/// What `caucus client` publishes, encoded here as it goes: the tone through libopus, 20 ms a
/// frame, and the test pattern through libvpx at its rate, a keyframe whenever the server
/// asks (and every ten seconds besides). Audio keeps its pace against the clock; a frame the
/// SDK refuses (a moment without media, while reconnecting) is dropped, as a camera's would be.
enum ClientPublisher {
    static func start(_ session: CaucusSession, options: ClientMediaOptions) -> Task<Void, any Error> {
        let (audio, video) = (session.audioHelper, session.videoHelper)
        let keyframeWanted = NIOLockedValueBox(false)
        let requests = video.keyframeRequests
        let listener = Task { for await _ in requests { keyframeWanted.withLockedValue { $0 = true } } }
        let (tone, pattern, rate) = (Tone(hertz: options.tone), TestPattern(size: options.size), options.rate)
        let (publishTone, publishPattern) = (options.publishTone, options.publishPattern)
        return Task {
            defer { listener.cancel() }
            let opus = publishTone ? try OpusEncoder(channels: 2) : nil
            let vp8 = publishPattern
                ? try VP8Encoder(
                    width: pattern.size.width, height: pattern.size.height, kilobitsPerSecond: Self.kilobitsPerSecond(pattern.size),
                    framesPerSecond: Int32(rate), keyframeInterval: UInt32(rate * 10))
                : nil
            let frameInterval = Duration.seconds(1) / rate
            let started = ContinuousClock.now
            var (audioFrame, videoFrame) = (0, 0)
            while !Task.isCancelled {
                let elapsed = ContinuousClock.now - started
                if let opus {
                    while Duration.milliseconds(20) * audioFrame <= elapsed {
                        let bytes = try opus.encode(tone.frame(audioFrame))
                        _ = try? audio.send(
                            EncodedFrame(codec: .opus, bytes: bytes, timestamp: UInt32(truncatingIfNeeded: audioFrame * 960), isKeyframe: true, audioLevel: Tone.level))
                        audioFrame += 1
                    }
                }
                if let vp8, frameInterval * videoFrame <= elapsed {
                    let keyframe = keyframeWanted.withLockedValue { wanted in
                        defer { wanted = false }
                        return wanted
                    }
                    for frame in try vp8.encode(pattern.picture(videoFrame), keyframe: keyframe) {
                        _ = try? video.send(EncodedFrame(codec: .vp8, bytes: frame.data, captureTime: elapsed, isKeyframe: frame.isKeyframe))
                    }
                    videoFrame += 1
                }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    /// A bitrate for the pattern's size: about 2.5 bits a pixel a second (300 kbit/s at
    /// 320x240), at least 100 kbit/s.
    static func kilobitsPerSecond(_ size: PictureSize) -> UInt32 { UInt32(max(100, size.width * size.height * 4 / 1_000)) }
}
#endif
