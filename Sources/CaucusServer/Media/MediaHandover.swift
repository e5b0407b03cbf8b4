import CaucusCore
import CaucusMedia
import CaucusSFU

/// What a session hands its media router after events that change who may receive what: for
/// each user whose eligibility may have changed (`MediaRoutingImpact`), and only those, what
/// it may receive now, where it is, and its connection (for its slot maps). Users not named
/// keep what the router already has; the router recomputes the named ones alone.
struct MediaHandover: Sendable {
    struct Entry: Sendable {
        /// The streams the user may receive, in the session's order (empty: nothing, e.g. while
        /// it reconnects).
        let eligible: [PublishedStream]
        /// Where it is; nil once it has left (the router forgets it).
        let location: Location?
        /// Its live connection; nil while it has none.
        let connection: ClientConnection?
        /// A stream it must have a slot for whatever the speaker ranking says: the voice
        /// broadcast, for everyone but the broadcaster.
        var pinned: PublishedStream? = nil
    }

    var users: [Int: Entry] = [:]

    var isEmpty: Bool { users.isEmpty }
}
