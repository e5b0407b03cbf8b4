import CaucusCore
import CaucusStore

/// Whose peer: one per user of a session. A new offer from the same user replaces its peer.
struct MediaPeerKey: Hashable, Sendable, CustomStringConvertible {
    let session: StoredSessionID
    let user: UserID

    var description: String { "session \(session.rawValue) user \(user)" }
}
