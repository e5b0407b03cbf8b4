/// One line of a location's timeline (docs/recording.md): what happened, to whom, when on the
/// location's clock. Enough for a player or a composer to rebuild the room from the files.
public struct TimelineEvent: Hashable, Sendable {
    /// Which media a mute, a file or a share is about.
    public enum MediaKind: String, Hashable, Sendable {
        case audio, video, screen
    }

    public enum What: Hashable, Sendable {
        /// The first line of every timeline. `wallClock` is the Unix time, in milliseconds, of
        /// the location clock's 0, so files can be placed in real time.
        case recordingStarted(location: String, wallClock: Int64)
        case recordingStopped(reason: String)
        case joined(user: String, name: String)
        case left(user: String)
        /// Came from another location of the session (`from`: a location name, "main" or "room-2").
        case movedIn(user: String, from: String)
        case movedOut(user: String, to: String)
        case muted(user: String, kind: MediaKind)
        case unmuted(user: String, kind: MediaKind)
        /// Became the loudest speaker.
        case spoke(user: String)
        case shareStarted(user: String)
        case shareStopped(user: String)
        /// The event's time is the location-clock time of the file's time 0: a block at `t`
        /// ms in the file lies at that time plus `t`. `width` and `height` are 0 for audio.
        case fileStarted(user: String, kind: MediaKind, file: String, codec: String, width: Int, height: Int)
        case fileEnded(user: String, kind: MediaKind, file: String, durationMilliseconds: Int64, reason: String)
    }

    /// Milliseconds on the location's clock.
    public var time: Int64
    public var what: What

    public init(time: Int64, _ what: What) {
        self.time = time
        self.what = what
    }

    /// The schema's version, written in ``What/recordingStarted(location:wallClock:)``.
    public static let schemaVersion = 1
}

extension TimelineEvent: Encodable {
    private enum Key: String, CodingKey {
        case t, event, version, location, wallClock, reason, user, name, from, to, kind, file, codec, width, height, duration
    }

    /// One flat object: `t` and `event` first, then the event's fields (docs/recording.md).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(time, forKey: .t)
        switch what {
        case .recordingStarted(let location, let wallClock):
            try container.encode("recordingStarted", forKey: .event)
            try container.encode(Self.schemaVersion, forKey: .version)
            try container.encode(location, forKey: .location)
            try container.encode(wallClock, forKey: .wallClock)
        case .recordingStopped(let reason):
            try container.encode("recordingStopped", forKey: .event)
            try container.encode(reason, forKey: .reason)
        case .joined(let user, let name):
            try container.encode("joined", forKey: .event)
            try container.encode(user, forKey: .user)
            try container.encode(name, forKey: .name)
        case .left(let user):
            try encode("left", user: user, into: &container)
        case .movedIn(let user, let from):
            try encode("movedIn", user: user, into: &container)
            try container.encode(from, forKey: .from)
        case .movedOut(let user, let to):
            try encode("movedOut", user: user, into: &container)
            try container.encode(to, forKey: .to)
        case .muted(let user, let kind):
            try encode("muted", user: user, into: &container)
            try container.encode(kind.rawValue, forKey: .kind)
        case .unmuted(let user, let kind):
            try encode("unmuted", user: user, into: &container)
            try container.encode(kind.rawValue, forKey: .kind)
        case .spoke(let user):
            try encode("spoke", user: user, into: &container)
        case .shareStarted(let user):
            try encode("shareStarted", user: user, into: &container)
        case .shareStopped(let user):
            try encode("shareStopped", user: user, into: &container)
        case .fileStarted(let user, let kind, let file, let codec, let width, let height):
            try encode("fileStarted", user: user, into: &container)
            try container.encode(kind.rawValue, forKey: .kind)
            try container.encode(file, forKey: .file)
            try container.encode(codec, forKey: .codec)
            try container.encode(width, forKey: .width)
            try container.encode(height, forKey: .height)
        case .fileEnded(let user, let kind, let file, let duration, let reason):
            try encode("fileEnded", user: user, into: &container)
            try container.encode(kind.rawValue, forKey: .kind)
            try container.encode(file, forKey: .file)
            try container.encode(duration, forKey: .duration)
            try container.encode(reason, forKey: .reason)
        }
    }

    private func encode(_ event: String, user: String, into container: inout KeyedEncodingContainer<Key>) throws {
        try container.encode(event, forKey: .event)
        try container.encode(user, forKey: .user)
    }
}
