import Caucus
import CaucusCore

/// What `caucus client` receives, by user and kind, measured over the last second: frames per
/// second, the decoded pictures' size, the decoded audio's level; and, for a program measuring
/// freezes, when each picture was decoded. Pure: the receiver feeds it each decoded frame with
/// its time, and asks for the rows of a report at a time.
struct ReceivedMediaMeter: Sendable {
    /// One user's media in a report.
    struct Row: Sendable, Hashable, Codable {
        struct Video: Sendable, Hashable, Codable {
            var fps: Double
            var width: Int
            var height: Int
            /// When each picture since the previous report was decoded, in milliseconds since
            /// 1970 (``ReceivedMediaMeter/report(at:name:)`` only): a freeze is a gap in them.
            var decodedAt: [Int64]?
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
        /// Pictures decoded since the last report, by time (at most ``undeliveredLimit``).
        var undelivered: [Duration] = []
    }

    /// The most decode times kept for the next report (a minute at 60 fps: a report that did not
    /// name the user for that long loses the oldest).
    static let undeliveredLimit = 3_600

    private struct Key: Hashable, Sendable {
        let user: UserID
        let kind: MediaKind
    }

    private var streams: [Key: Stream] = [:]
    private var undecodable: [UserID: Int] = [:]
    private let window: Duration
    /// The time since 1970 of time zero on the clock the frames' times are read from.
    private let origin: Duration

    /// `origin`: the wall-clock time (since 1970) of time zero of the times it is fed.
    init(window: Duration = .seconds(1), origin: Duration = .zero) {
        self.window = window
        self.origin = origin
    }

    /// A video or screen-share frame of `user` decoded to a picture of `width` by `height`.
    mutating func picture(from user: UserID, kind: MediaKind, width: Int, height: Int, at time: Duration) {
        let key = Key(user: user, kind: kind)
        streams[key, default: Stream(window: FrameRateWindow(length: window))].window.add(at: time)
        streams[key]?.width = width
        streams[key]?.height = height
        if streams[key]?.undelivered.count == Self.undeliveredLimit { streams[key]?.undelivered.removeFirst() }
        streams[key]?.undelivered.append(time)
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

    /// The rows of a report at `now`, as ``rows(at:name:)``, each video and screen share with
    /// the times its pictures were decoded since the previous report (those of a stream the
    /// report leaves out wait for one that names it).
    mutating func report(at now: Duration, name: (UserID) -> String?) -> [Row] {
        var rows = rows(at: now, name: name)
        for key in streams.keys where key.kind != .audio {
            guard let index = rows.firstIndex(where: { $0.user == key.user.description }) else { continue }
            switch key.kind {
            case .video where rows[index].video != nil: rows[index].video?.decodedAt = deliver(key)
            case .screenShare where rows[index].screenShare != nil: rows[index].screenShare?.decodedAt = deliver(key)
            default: continue
            }
        }
        return rows
    }

    /// The stream's decode times not yet reported, in milliseconds since 1970; now reported.
    private mutating func deliver(_ key: Key) -> [Int64] {
        guard let times = streams[key]?.undelivered else { return [] }
        streams[key]?.undelivered = []
        return times.map { time in
            let (seconds, attoseconds) = (origin + time).components
            return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
        }
    }
}
