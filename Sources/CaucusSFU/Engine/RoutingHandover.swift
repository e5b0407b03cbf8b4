import CaucusMedia

/// What a session hands its forwarding engine after events that change who may receive what:
/// for each user whose eligibility may have changed, and only those, what it may receive now,
/// where it is, and its signalling channel (for its slot maps). Users not named keep what the
/// engine already has; the engine recomputes the named ones alone.
///
/// Locations are numbers the shell gives (the engine only compares them: a location's users
/// rank their speakers together).
public struct RoutingHandover: Sendable {
    public struct Entry: Sendable {
        /// The streams the user may receive, in the session's order (empty: nothing, e.g. while
        /// it reconnects).
        public var eligible: [PublishedStream]
        /// Where it is; nil once it has left (the engine forgets it).
        public var location: Int?
        /// Its live signalling channel; nil while it has none (it gets no slot maps).
        public var channel: SignallingChannelID?
        /// A stream it must have a slot for whatever the speaker ranking says: the voice
        /// broadcast, for everyone but the broadcaster.
        public var pinned: PublishedStream?

        public init(eligible: [PublishedStream], location: Int?, channel: SignallingChannelID?, pinned: PublishedStream? = nil) {
            self.eligible = eligible
            self.location = location
            self.channel = channel
            self.pinned = pinned
        }
    }

    public var users: [Int: Entry] = [:]

    public init() {}

    public var isEmpty: Bool { users.isEmpty }
}

/// A user's signalling channel as the engine knows it: only whether it is the one a slot map
/// was last sent on (a new channel, after a reconnect, gets the map again).
public struct SignallingChannelID: Hashable, Sendable {
    private let id: ObjectIdentifier

    public init(_ channel: AnyObject) { id = ObjectIdentifier(channel) }
}
