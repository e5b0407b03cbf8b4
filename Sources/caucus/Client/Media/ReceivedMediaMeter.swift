import Caucus
import CaucusCore

/// What `caucus client` receives, by user and kind, measured over the last second: frames per
/// second, the decoded pictures' size, the decoded audio's level. Pure: the receiver feeds it
/// each decoded frame with its time, and asks for the rows of a report at a time.
struct ReceivedMediaMeter: Sendable {
    /// One user's media in a report.
    struct Row: Sendable, Hashable, Codable {
        struct Video: Sendable, Hashable, Codable {
            var fps: Double
            var width: Int
            var height: Int
        }

        struct Audio: Sendable, Hashable, Codable {
            var fps: Double
            var dBFS: Double
        }

        /// The user's ID (`u3`) and name.
        var user: String
        var name: String
        var video: Video?
        var screenShare: Video?
        var audio: Audio?
        /// Frames that reached the client but did not decode, since it started.
        var undecodable: Int
    }

    private struct Stream: Sendable {
        var window: FrameRateWindow
        var width = 0
        var height = 0
    }

    private struct Key: Hashable, Sendable {
        let user: UserID
        let kind: MediaKind
    }

    private var streams: [Key: Stream] = [:]
    private var undecodable: [UserID: Int] = [:]
    private let window: Duration

    init(window: Duration = .seconds(1)) { self.window = window }

    /// A video or screen-share frame of `user` decoded to a picture of `width` by `height`.
    mutating func picture(from user: UserID, kind: MediaKind, width: Int, height: Int, at time: Duration) {
        let key = Key(user: user, kind: kind)
        streams[key, default: Stream(window: FrameRateWindow(length: window))].window.add(at: time)
        streams[key]?.width = width
        streams[key]?.height = height
    }

    /// An audio frame of `user` decoded to `samples`.
    mutating func sound(from user: UserID, samples: [Int16], at time: Duration) {
        let key = Key(user: user, kind: .audio)
        streams[key, default: Stream(window: FrameRateWindow(length: window))].window
            .add(at: time, sumOfSquares: AudioLevel.sumOfSquares(samples), samples: samples.count)
    }

    /// A frame of `user` that its decoder refused.
    mutating func undecodable(from user: UserID) { undecodable[user, default: 0] += 1 }

    /// A row per user with a frame in the last window before `now`, in user order; `name`
    /// gives each user's name (nil for one the client no longer knows: its ID stands in).
    func rows(at now: Duration, name: (UserID) -> String?) -> [Row] {
        var rows: [UserID: Row] = [:]
        for key in streams.keys.sorted(by: { ($0.user, $0.kind.rawValue) < ($1.user, $1.kind.rawValue) }) {
            guard let stream = streams[key], !stream.window.isEmpty(at: now) else { continue }
            var row = rows[key.user] ?? Row(user: key.user.description, name: name(key.user) ?? key.user.description, undecodable: undecodable[key.user] ?? 0)
            let fps = (stream.window.framesPerSecond(at: now) * 10).rounded() / 10
            switch key.kind {
            case .audio: row.audio = Row.Audio(fps: fps, dBFS: (stream.window.decibels(at: now) * 10).rounded() / 10)
            case .video: row.video = Row.Video(fps: fps, width: stream.width, height: stream.height)
            case .screenShare: row.screenShare = Row.Video(fps: fps, width: stream.width, height: stream.height)
            }
            rows[key.user] = row
        }
        return rows.keys.sorted().compactMap { rows[$0] }
    }
}
