// With the package's `Codecs` trait only (CodecsBuild).
#if Codecs
import Atomics
import Caucus
import Foundation
import NIOConcurrencyHelpers

/// Sends every publisher's looped frames (`LoopedMedia`) from one thread of its own, paced by
/// the clock: audio every 20 ms, video at the loop's rate, back to the loop's keyframe whenever
/// the server asks a publisher for one. On a thread of its own, the load the server sees does
/// not depend on how busy decoding keeps Swift's task pool. When the thread is late by more than
/// a video frame, the frames it missed are never sent (counted as skipped), as a camera that
/// cannot keep up makes fewer; the loop's next frame follows, so receivers still decode every
/// one. A frame the SDK refuses is not counted as sent.
final class LoopedMediaSender: Sendable {
    /// One publisher: what it sends with, and where its counts go.
    struct Publisher: Sendable {
        let audio: AudioHelper?
        let video: VideoHelper?
        let keyframeWanted: NIOLockedValueBox<Bool>
        let counts: NIOLockedValueBox<MediaClientsBenchClient.Counts>
    }

    private let running = ManagedAtomic(true)
    private let finished = NIOLockedValueBox(false)

    init(_ loop: LoopedMedia, publishers: [Publisher]) {
        let (running, finished) = (running, finished)
        let thread = Thread {
            defer { finished.withLockedValue { $0 = true } }
            let frameInterval = Duration.seconds(1) / loop.frameRate
            let started = ContinuousClock.now
            var audioFrame = 0
            var videoFrame = 0
            var videoIndex = [Int](repeating: 0, count: publishers.count)
            while running.load(ordering: .relaxed) {
                let elapsed = ContinuousClock.now - started
                var sent = [(audio: Int, video: Int, skipped: Int)](repeating: (0, 0, 0), count: publishers.count)
                while Duration.milliseconds(20) * audioFrame <= elapsed {
                    for (index, publisher) in publishers.enumerated() {
                        guard let audio = publisher.audio else { continue }
                        let frame = EncodedFrame(
                            codec: .opus, bytes: loop.audio[audioFrame % loop.audio.count],
                            timestamp: UInt32(truncatingIfNeeded: audioFrame * 960), isKeyframe: true, audioLevel: Tone.level)
                        if (try? audio.send(frame)) != nil { sent[index].audio += 1 }
                    }
                    audioFrame += 1
                }
                if frameInterval * videoFrame <= elapsed {
                    // The latest frame time due; any before it were missed.
                    let due = Int((elapsed.inSeconds / frameInterval.inSeconds).rounded(.down))
                    let skipped = max(0, due - videoFrame)
                    for (index, publisher) in publishers.enumerated() {
                        guard let video = publisher.video else { continue }
                        if publisher.keyframeWanted.withLockedValue({ wanted in
                            defer { wanted = false }
                            return wanted
                        }) { videoIndex[index] = 0 }
                        // The loop's next frame, whatever was missed: skipping one would leave
                        // the receivers' decoders without its reference.
                        let encoded = loop.video[videoIndex[index] % loop.video.count]
                        videoIndex[index] += 1
                        let frame = EncodedFrame(codec: .vp8, bytes: encoded.data, captureTime: frameInterval * due, isKeyframe: encoded.isKeyframe)
                        if (try? video.send(frame)) != nil { sent[index].video += 1 }
                        sent[index].skipped += skipped
                    }
                    videoFrame = due + 1
                }
                for (index, publisher) in publishers.enumerated() where sent[index] != (0, 0, 0) {
                    publisher.counts.withLockedValue { counts in
                        counts.audioSent += sent[index].audio
                        counts.videoSent += sent[index].video
                        counts.videoSkipped += sent[index].skipped
                    }
                }
                Thread.sleep(forTimeInterval: 0.002)
            }
        }
        thread.name = "media-clients sender"
        thread.start()
    }

    /// Stops sending; returns once the thread has.
    func stop() async {
        running.store(false, ordering: .relaxed)
        while !finished.withLockedValue({ $0 }) { try? await Task.sleep(for: .milliseconds(5)) }
    }
}
#endif
