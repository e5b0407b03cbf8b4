/// Who receives what: a pure function of the session state, which the media router follows.
///
/// - A subscriber receives the publications of the publishers in its own location (the main
///   session or its room) and nothing else, never its own. A user in a room receives nothing
///   of the main session.
/// - Connected users count, and so does a reconnecting user whose media is kept
///   (`mediaKept`: the server's media layer still has its peer, alive by ICE consent): its
///   media does not depend on its WebSocket, so it is forwarded from it and to it, in its
///   location as the session has it now (a move while it is away applies at once). Any other
///   reconnecting user keeps its seat and its publications, but nothing is forwarded from it
///   or to it until it resumes. Liveness is no part of the session: the caller says it.
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
    /// present, or is reconnecting without its media kept (`mediaKept`).
    public func mediaSources(for subscriber: UserID, mediaKept: (UserID) -> Bool = { _ in false }) -> [MediaSource] {
        guard let user = users[subscriber], forwardsMedia(of: user, mediaKept: mediaKept) else { return [] }
        return mediaSources(
            for: subscriber, among: mediaSources(in: receivingLocation(of: subscriber), mediaKept: mediaKept),
            broadcast: broadcastVoice(mediaKept: mediaKept))
    }

    /// Whether `user`'s media is forwarded (from it and to it): connected, or reconnecting with
    /// its media kept.
    public func forwardsMedia(of user: SessionUser, mediaKept: (UserID) -> Bool = { _ in false }) -> Bool {
        user.presence.isConnected || mediaKept(user.id)
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
        mediaSources(for: subscriber, among: located, broadcast: broadcastVoice)
    }

    /// The same, with `broadcast` as `broadcastVoice(mediaKept:)` found it.
    public func mediaSources(for subscriber: UserID, among located: [MediaSource], broadcast: MediaSource?) -> [MediaSource] {
        guard let broadcast, broadcast.publisher != subscriber else {
            return located.filter { $0.publisher != subscriber }
        }
        return [broadcast] + located.filter { $0.publisher != subscriber && $0 != broadcast }
    }

    /// The broadcaster's audio, while it is connected and publishes audio.
    public var broadcastVoice: MediaSource? { broadcastVoice() }

    /// The broadcaster's audio, while it publishes audio and is connected or has its media kept.
    public func broadcastVoice(mediaKept: (UserID) -> Bool = { _ in false }) -> MediaSource? {
        guard let id = voiceBroadcaster, let user = users[id], forwardsMedia(of: user, mediaKept: mediaKept), user.publishing.contains(.audio)
        else { return nil }
        return MediaSource(publisher: id, kind: .audio)
    }

    /// Everything forwarded within a location, the voice broadcast aside, publishers in join
    /// order (the order of `users`): each connected subscriber there, and each listener in to it, receives these but its own
    /// (`mediaSources(for:among:)`). One call per location serves all its subscribers.
    public func mediaSources(in location: Location, mediaKept: (UserID) -> Bool = { _ in false }) -> [MediaSource] {
        let allowed = forwardedKinds(in: location)
        guard !allowed.isEmpty else { return [] }
        var sources: [MediaSource] = []
        for publisher in users.values where publisher.location == location && forwardsMedia(of: publisher, mediaKept: mediaKept) {
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
}
