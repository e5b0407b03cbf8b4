import Caucus
import CaucusCodecs
import CaucusCore
import Foundation
import NIOConcurrencyHelpers

/// One client of `caucus bench media-clients`: an SDK session (`CaucusSession`, its own media
/// connection) that sends the looped frames, if it publishes, and receives, assembles and
/// (unless told not to) decodes everything it is sent, counting frames by publisher and kind.
final class MediaClientsBenchClient: Sendable {
    /// What the client sent and received since the counts were last taken.
    struct Counts: Sendable {
        var audioSent = 0
        var videoSent = 0
        /// By publisher: audio and video frames received.
        var audio: [UserID: Int] = [:]
        var video: [UserID: Int] = [:]
        var undecodable = 0
    }

    let session = CaucusSession()
    let index: Int
    private let counts = NIOLockedValueBox(Counts())
    private let tasks = NIOLockedValueBox<[Task<Void, Never>]>([])

    init(index: Int) { self.index = index }

    func join(server: ServerUnderTest, sessionName: String) async throws {
        let token = try server.token(session: sessionName, role: index == 0 ? .host : .participant)
        guard let url = URL(string: "ws://\(server.host):\(server.port)/ws") else { throw BenchError("no WebSocket address for the server") }
        try await session.join(url: url, sessionName: sessionName, userName: "Client \(index)", token: token)
    }

    /// Starts receiving (decoding each frame if `decode`), then media: audio (muted unless it
    /// publishes audio) and video if it publishes video.
    func startMedia(publishAudio: Bool, publishVideo: Bool, decode: Bool) async throws {
        let frames = session.mediaFrames
        let counts = counts
        let receiving = Task {
            var opus: [UserID: OpusDecoder] = [:]
            var vp8: [UserID: VP8Decoder] = [:]
            for await remote in frames {
                var decoded = true
                if decode {
                    do {
                        switch remote.kind {
                        case .audio:
                            let decoder = try opus[remote.user] ?? OpusDecoder(channels: 2)
                            opus[remote.user] = decoder
                            _ = try decoder.decode(remote.frame.bytes)
                        case .video, .screenShare:
                            let decoder = try vp8[remote.user] ?? VP8Decoder()
                            vp8[remote.user] = decoder
                            _ = try decoder.decode(remote.frame.bytes)
                        }
                    } catch {
                        decoded = false
                    }
                }
                counts.withLockedValue { counts in
                    if !decoded { counts.undecodable += 1 }
                    if remote.kind == .audio { counts.audio[remote.user, default: 0] += 1 } else { counts.video[remote.user, default: 0] += 1 }
                }
            }
        }
        tasks.withLockedValue { $0.append(receiving) }
        try await session.audioHelper.start(muted: !publishAudio)
        if publishVideo { try await session.videoHelper.start() }
    }

    /// Sends `loop`'s frames at their pace until stopped: audio every 20 ms, video at the
    /// loop's frame rate, back to the loop's keyframe whenever the server asks for one.
    func startPublishing(_ loop: LoopedMedia, audio: Bool, video: Bool) {
        let (audioHelper, videoHelper, counts) = (session.audioHelper, session.videoHelper, counts)
        let keyframeWanted = NIOLockedValueBox(false)
        let requests = videoHelper.keyframeRequests
        let listening = Task { for await _ in requests { keyframeWanted.withLockedValue { $0 = true } } }
        let sending = Task {
            let frameInterval = Duration.seconds(1) / loop.frameRate
            let started = ContinuousClock.now
            var (audioFrame, videoFrame, videoIndex) = (0, 0, 0)
            while !Task.isCancelled {
                let elapsed = ContinuousClock.now - started
                var (audioSent, videoSent) = (0, 0)
                while audio, Duration.milliseconds(20) * audioFrame <= elapsed {
                    let bytes = loop.audio[audioFrame % loop.audio.count]
                    let frame = EncodedFrame(codec: .opus, bytes: bytes, timestamp: UInt32(truncatingIfNeeded: audioFrame * 960), isKeyframe: true, audioLevel: Tone.level)
                    if (try? audioHelper.send(frame)) != nil { audioSent += 1 }
                    audioFrame += 1
                }
                if video, frameInterval * videoFrame <= elapsed {
                    if keyframeWanted.withLockedValue({ wanted in defer { wanted = false }; return wanted }) { videoIndex = 0 }
                    let encoded = loop.video[videoIndex % loop.video.count]
                    let frame = EncodedFrame(codec: .vp8, bytes: encoded.data, captureTime: frameInterval * videoFrame, isKeyframe: encoded.isKeyframe)
                    if (try? videoHelper.send(frame)) != nil { videoSent += 1 }
                    videoFrame += 1
                    videoIndex += 1
                }
                if audioSent + videoSent > 0 {
                    counts.withLockedValue { counts in
                        counts.audioSent += audioSent
                        counts.videoSent += videoSent
                    }
                }
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        tasks.withLockedValue { $0 += [listening, sending] }
    }

    /// The counts since the last call, and a fresh start.
    func takeCounts() -> Counts {
        counts.withLockedValue { counts in
            defer { counts = Counts() }
            return counts
        }
    }

    func stop() async {
        tasks.withLockedValue { $0.forEach { $0.cancel() } }
        try? await session.leave()
    }
}
