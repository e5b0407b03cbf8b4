/// Who receives what: a pure function of the session state, which the media router follows.
///
/// - A subscriber receives the publications of the publishers in its own location (the main
///   session or its room) and nothing else, never its own. A user in a room receives nothing
///   of the main session.
/// - Only connected users count: a reconnecting user keeps its seat and its publications, but
///   nothing is forwarded from it or to it until it resumes (the slot map it would need travels
///   on the WebSocket it lost).
/// - A room forwards only the kinds its definition allows (`audio`, `video`, `screenShare`).
/// - The main session, muted (`muteParent`), forwards no audio and/or no video of anyone in it;
///   screen shares go on. Paused (`pauseParent`), it forwards nothing its participants publish,
///   as it lets them post no room chat; the host and managers there are still heard and seen.
/// - A listener (`listenIn`) receives the room it listens in to instead of its own location,
///   as that room's users receive it; it is not in the room, so nothing of it reaches the room.
/// - A voice broadcast (`startVoiceBroadcast`) reaches every connected user but the
///   broadcaster, in every location and whatever the location's mutes, pause or definition:
///   the broadcaster's audio comes first in everyone's list (so it takes an audio slot first),
///   if the broadcaster is connected and publishes audio.
extension SessionState {
    /// What `subscriber` receives now: the voice broadcast first, then publishers in join
    /// order, each one's kinds in `MediaKind.allCases` order. Empty for a user who is not
    /// present and connected.
    public func mediaSources(for subscriber: UserID) -> [MediaSource] {
        guard let user = users[subscriber], user.presence.isConnected else { return [] }
        return mediaSources(for: subscriber, among: mediaSources(in: receivingLocation(of: subscriber)))
    }

    /// Where a user's media comes from: the room it listens in to, else its own location.
    public func receivingLocation(of subscriber: UserID) -> Location {
        if let room = listeners[subscriber] { return .room(room) }
        return users[subscriber]?.location ?? .main
    }

    /// What a connected `subscriber` receives, given `located`, the sources of its receiving
    /// location (`mediaSources(in: receivingLocation(of:))`, computed once for everyone there):
    /// the voice broadcast first, then the rest, never its own.
    public func mediaSources(for subscriber: UserID, among located: [MediaSource]) -> [MediaSource] {
        guard let broadcast = broadcastVoice, broadcast.publisher != subscriber else {
            return located.filter { $0.publisher != subscriber }
        }
        return [broadcast] + located.filter { $0.publisher != subscriber && $0 != broadcast }
    }

    /// The broadcaster's audio, while it is connected and publishes audio.
    public var broadcastVoice: MediaSource? {
        guard let id = voiceBroadcaster, let user = users[id], user.presence.isConnected, user.publishing.contains(.audio) else {
            return nil
        }
        return MediaSource(publisher: id, kind: .audio)
    }

    /// Everything forwarded within a location, the voice broadcast aside: each connected
    /// subscriber there, and each listener in to it, receives these but its own
    /// (`mediaSources(for:among:)`). One call per location serves all its subscribers.
    public func mediaSources(in location: Location) -> [MediaSource] {
        let allowed = forwardedKinds(in: location)
        guard !allowed.isEmpty else { return [] }
        var sources: [MediaSource] = []
        for publisher in connectedUsers(in: location) {
            var kinds = publisher.publishing.intersection(allowed)
            if location == .main && parent.paused && role(of: publisher) == .participant { kinds = [] }
            for kind in kinds.kinds { sources.append(MediaSource(publisher: publisher.id, kind: kind)) }
        }
        return sources
    }

    /// The kinds a location forwards at all.
    func forwardedKinds(in location: Location) -> MediaKinds {
        switch location {
        case .main:
            var kinds = MediaKinds.all
            if parent.audioMuted { kinds.remove(.audio) }
            if parent.videoMuted { kinds.remove(.video) }
            return kinds
        case .room(let id):
            guard let definition = room(id)?.definition else { return [] }
            var kinds: MediaKinds = []
            if definition.audio { kinds.insert(.audio) }
            if definition.video { kinds.insert(.video) }
            if definition.screenShare { kinds.insert(.screenShare) }
            return kinds
        }
    }

    /// In join order (the order of `users`).
    private func connectedUsers(in location: Location) -> [SessionUser] {
        users.values.filter { $0.location == location && $0.presence.isConnected }
    }
}
