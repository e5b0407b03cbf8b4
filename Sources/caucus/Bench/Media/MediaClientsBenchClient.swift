// With the package's `Codecs` trait only (CodecsBuild).
#if Codecs
import Caucus
import CaucusCodecs
import CaucusCore
import Foundation
import NIOConcurrencyHelpers

/// One client of `caucus bench media-clients`: an SDK session (`CaucusSession`, its own media
/// connection) whose looped frames `LoopedMediaSender` sends, if it publishes, and which
/// receives, assembles and (unless told not to) decodes everything it is sent, counting frames
/// by publisher and kind.
final class MediaClientsBenchClient: Sendable {
    /// What the client sent and received since the counts were last taken.
    struct Counts: Sendable {
        var audioSent = 0
        var videoSent = 0
        /// Video frames the sender was late for and skipped.
        var videoSkipped = 0
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
                // Frames waiting never suspend the loop: let the other clients' loops run.
                await Task.yield()
            }
        }
        tasks.withLockedValue { $0.append(receiving) }
        try await session.audioHelper.start(muted: !publishAudio)
        if publishVideo { try await session.videoHelper.start() }
    }

    /// What the sender needs to publish for this client (`LoopedMediaSender`): its helpers
    /// for what it publishes, and a flag the server's keyframe requests raise.
    func publisher(audio: Bool, video: Bool) -> LoopedMediaSender.Publisher {
        let keyframeWanted = NIOLockedValueBox(false)
        let requests = session.videoHelper.keyframeRequests
        let listening = Task { for await _ in requests { keyframeWanted.withLockedValue { $0 = true } } }
        tasks.withLockedValue { $0.append(listening) }
        return LoopedMediaSender.Publisher(
            audio: audio ? session.audioHelper : nil, video: video ? session.videoHelper : nil, keyframeWanted: keyframeWanted, counts: counts)
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
#endif
