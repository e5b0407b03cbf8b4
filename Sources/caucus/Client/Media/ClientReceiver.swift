// With the package's `Codecs` trait only (CodecsBuild).
#if Codecs
import Caucus
import CaucusCodecs
import CaucusCore
import Foundation
import NIOConcurrencyHelpers

/// What `caucus client` does with the media it receives: decodes every frame (libopus for
/// audio, libvpx for video and screen share, a decoder per user and kind), measures it, and
/// once a second prints the report. The SDK labels each frame with its user and follows
/// moves by itself, so nothing here knows of slots or rooms.
final class ClientReceiver: Sendable {
    private let started = ContinuousClock.now
    /// Times on the meter are since `started`; its report gives decode times on the wall clock.
    private let meter = NIOLockedValueBox(ReceivedMediaMeter(origin: .seconds(Date().timeIntervalSince1970)))
    private let tasks: NIOLockedValueBox<[Task<Void, Never>]> = NIOLockedValueBox([])

    /// Starts decoding `session`'s frames (subscribe before media starts, to miss none) and
    /// printing the report on `console` in `format`.
    init(session: CaucusSession, console: Console, format: ClientMediaOptions.ReportFormat) {
        let frames = session.mediaFrames
        let (meter, started) = (meter, started)
        let decoding = Task {
            var decoders = Decoders()
            for await frame in frames {
                let now = ContinuousClock.now - started
                decoders.decode(frame, at: now, into: meter)
            }
        }
        let printing = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                let now = ContinuousClock.now - started
                // Once the session is left there is nobody to report on.
                guard let snapshot = session.snapshot else { continue }
                let rows = meter.withLockedValue { $0.report(at: now) { snapshot.user($0)?.name } }
                switch format {
                case .json: console.print(MediaReportLines.json(rows))
                case .text: console.print(MediaReportLines.text(rows))
                case .none: break
                }
            }
        }
        tasks.withLockedValue { $0 = [decoding, printing] }
    }

    func stop() { tasks.withLockedValue { $0.forEach { $0.cancel() } } }

    deinit { stop() }

    /// The decoders, by user and kind: one owner (the decoding task).
    private struct Decoders {
        private var opus: [UserID: OpusDecoder] = [:]
        private var vp8: [ReceivedKey: VP8Decoder] = [:]

        private struct ReceivedKey: Hashable {
            let user: UserID
            let kind: MediaKind
        }

        mutating func decode(_ remote: RemoteFrame, at now: Duration, into meter: NIOLockedValueBox<ReceivedMediaMeter>) {
            do {
                switch (remote.kind, remote.frame.codec) {
                case (.audio, .opus):
                    let decoder = try opus[remote.user] ?? OpusDecoder(channels: 2)
                    opus[remote.user] = decoder
                    let samples = try decoder.decode(remote.frame.bytes)
                    meter.withLockedValue { $0.sound(from: remote.user, samples: samples, at: now) }
                case (.video, .vp8), (.screenShare, .vp8):
                    let key = ReceivedKey(user: remote.user, kind: remote.kind)
                    // A new decoder (the first, or after a failure) starts at a keyframe.
                    if vp8[key] == nil, !remote.frame.isKeyframe { return }
                    let decoder = try vp8[key] ?? VP8Decoder()
                    vp8[key] = decoder
                    for picture in try decoder.decode(remote.frame.bytes) {
                        meter.withLockedValue {
                            $0.picture(from: remote.user, kind: remote.kind, width: picture.width, height: picture.height, at: now)
                        }
                    }
                default:
                    // H.264 (from a user of the other codec: never sent to a VP8 client) has no decoder here.
                    meter.withLockedValue { $0.undecodable(from: remote.user) }
                }
            } catch {
                meter.withLockedValue { $0.undecodable(from: remote.user) }
                // A decoder that failed starts again at the next frame (video: the SDK's next keyframe).
                if remote.kind == .audio { opus[remote.user] = nil } else { vp8[ReceivedKey(user: remote.user, kind: remote.kind)] = nil }
            }
        }
    }
}
#endif
