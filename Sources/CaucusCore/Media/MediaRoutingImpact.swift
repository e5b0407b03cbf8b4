/// Whether an event changes who may receive what (`SessionState.mediaSources`), and for whom:
/// the media router recomputes routing only after such events, and only for the subscribers
/// they touch. A chat message, a timer tick, a rename, a plan edit change nothing and name
/// nobody.
///
/// Three reaches, each a superset of what really changed (never less):
/// - `subscribers`: users whose own location, presence or seat changed: what *they* receive;
/// - `publishers`: users whose publications may reach others differently now (they publish
///   something new, moved, dropped, left, or their role changed under a paused main session):
///   everyone where they were and everyone where they are now;
/// - `locations`: everyone in a location whose rules changed (the main session muted or
///   paused); `everyone` when the whole layout changed (breakouts open or close, the session ends).
public struct MediaRoutingImpact: Hashable, Sendable {
    public var everyone = false
    public var locations: Set<Location> = []
    public var subscribers: Set<UserID> = []
    public var publishers: Set<UserID> = []

    public init(everyone: Bool = false, locations: Set<Location> = [], subscribers: Set<UserID> = [], publishers: Set<UserID> = []) {
        self.everyone = everyone
        self.locations = locations
        self.subscribers = subscribers
        self.publishers = publishers
    }

    public static let none = MediaRoutingImpact()

    /// Nothing anyone receives can have changed.
    public var isNone: Bool { !everyone && locations.isEmpty && subscribers.isEmpty && publishers.isEmpty }

    /// What one event can change.
    public init(of event: Event) {
        switch event {
        case .userJoined(let user, let becomesHost):
            // A joiner publishes nothing yet (`mediaChanged` follows if it does): only what it
            // receives changes, so a join storm recomputes the joiners, not their audience. A
            // joiner who becomes host changes roles, which a paused main session goes by.
            self.init(
                locations: becomesHost ? [.main] : [], subscribers: [user.id], publishers: user.publishing.isEmpty ? [] : [user.id])
        case .userLeft(let user, _, let newHost):
            self.init(subscribers: [user], publishers: Set([user] + [newHost].compactMap { $0 }))
        case .userReconnecting(let user, _), .userResumed(let user):
            self.init(subscribers: [user], publishers: [user])
        case .hostChanged(let from, let to):
            // Roles decide who is heard in a paused main session.
            self.init(publishers: Set([from, to].compactMap { $0 }))
        case .managerChanged(let user, _):
            self.init(publishers: [user])
        case .mediaChanged(let user, _, _):
            self.init(publishers: [user])
        case .usersMoved(let moves):
            let moved = Set(moves.map(\.user))
            self.init(subscribers: moved, publishers: moved)
        case .parentControlChanged:
            self.init(locations: [.main])
        case .statusChanged, .sessionEnded:
            // Rooms open or close (with their definitions), everyone may move.
            self.init(everyone: true)
        case .voiceBroadcast:
            // Everyone but the broadcaster receives it, wherever they are.
            self.init(everyone: true)
        case .listening(let user, _, _):
            // The listener receives another location; nobody receives the listener differently.
            self.init(subscribers: [user])
        case .sessionStarted, .userRenamed, .modeChanged, .settingsChanged, .preListChanged, .assignmentsChanged,
            .roomRenamed, .invited, .invitationRejected, .timerChanged, .timerWarning, .helpRequested, .helpAnswered,
            .chatMessage, .broadcast, .roleView:
            self.init()
        case .recordingChanged:
            // Recording does not change who receives whom (it will add a subscriber of its own).
            self.init()
        }
    }

    /// What a batch of events can change: the union of each one's.
    public init(of events: some Sequence<Event>) {
        self.init()
        for event in events { formUnion(MediaRoutingImpact(of: event)) }
    }

    public mutating func formUnion(_ other: MediaRoutingImpact) {
        everyone = everyone || other.everyone
        locations.formUnion(other.locations)
        subscribers.formUnion(other.subscribers)
        publishers.formUnion(other.publishers)
    }
}

extension SessionState {
    /// The users whose `mediaSources(for:)` may differ from what it was before `impact`'s
    /// events: the subscribers it names (present or not), everyone in the locations it names,
    /// and everyone where each publisher it names was (`previousLocation`, as the router last
    /// knew it) and is now, with those listening in to those locations. Nil means everyone (as
    /// for a change of the voice broadcaster's own publication or presence, which everyone
    /// receives). Costs the size of the locations touched (a room's occupants and listeners;
    /// the main session's users are found by one pass over the users).
    public func usersWithChangedMedia(after impact: MediaRoutingImpact, previousLocation: (UserID) -> Location?) -> Set<UserID>? {
        guard !impact.everyone else { return nil }
        if let broadcaster = voiceBroadcaster, impact.publishers.contains(broadcaster) { return nil }
        var locations = impact.locations
        for publisher in impact.publishers {
            if let before = previousLocation(publisher) { locations.insert(before) }
            if let now = users[publisher]?.location { locations.insert(now) }
        }
        var affected = impact.subscribers
        for location in locations {
            switch location {
            case .room(let id):
                affected.formUnion(room(id)?.occupants ?? [])
                affected.formUnion(listeners(of: id))
            case .main:
                for user in users.values where user.location == .main { affected.insert(user.id) }
            }
        }
        return affected
    }
}
