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
extension SessionState {
    /// What `subscriber` receives now, publishers in join order, each one's kinds in
    /// `MediaKind.allCases` order. Empty for a user who is not present and connected.
    public func mediaSources(for subscriber: UserID) -> [MediaSource] {
        guard let user = users[subscriber], user.presence.isConnected else { return [] }
        return mediaSources(in: user.location).filter { $0.publisher != subscriber }
    }

    /// Everything forwarded within a location: each connected subscriber there receives these
    /// but its own. One call per location serves all its subscribers.
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
