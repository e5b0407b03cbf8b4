import CaucusCore
import CaucusProtocol
import NIOConcurrencyHelpers

/// Carries the server's slot maps from the session's reader (the `SessionEngine`) to the
/// media connection, and the session's joins, resumes and end to the media engine. The latest
/// map is kept: it may arrive before the connection that needs it is up. Joins are counted:
/// the media engine's calls and the notices carry the count, so that a session object that
/// left and joined again gets fresh media, untouched by what the earlier join left behind.
final class MediaSlotRelay: Sendable {
    private struct State {
        var latest: [String: UserID?] = [:]
        var connection: MediaConnection?
        var onEnd: (@Sendable (Int) -> Void)?
        var onResume: (@Sendable (_ join: Int, _ mediaKept: Bool) -> Void)?
        var unplayable: [UserID: MediaKinds] = [:]
        var joins = 0
    }

    private let state = NIOLockedValueBox(State())
    /// The active speakers of this user's location, loudest first, each time the server's
    /// list changes.
    let activeSpeakers = MediaBroadcast<[UserID]>(bufferLimit: 8)
    /// What this user may receive but its peer cannot decode (another video codec), by
    /// publisher, each time that changes.
    let unplayable = MediaBroadcast<[UserID: MediaKinds]>(bufferLimit: 8)

    /// A slot map frame: who fills each slot, by mid, and the active speakers when they changed.
    func receive(_ slots: [MediaSlot], unplayable listed: [UnplayableMedia], activeSpeakers speakers: [UserID]?) {
        if let speakers { activeSpeakers.yield(speakers) }
        var undecodable: [UserID: MediaKinds] = [:]
        for item in listed {
            guard let kind = MediaKind(rawValue: item.kind) else { continue }
            undecodable[item.user, default: []].insert(MediaKinds(kind))
        }
        let changed = state.withLockedValue { state in
            defer { state.unplayable = undecodable }
            return state.unplayable != undecodable
        }
        if changed { unplayable.yield(undecodable) }
        let map = Dictionary(slots.map { ($0.mid, $0.user) }, uniquingKeysWith: { _, last in last })
        let connection = state.withLockedValue { state in
            state.latest = map
            return state.connection
        }
        connection?.apply(map)
    }

    /// From now on maps go to `connection` (nil: nowhere); it gets the latest at once.
    func attach(_ connection: MediaConnection?) {
        let latest = state.withLockedValue { state in
            state.connection = connection
            return state.latest
        }
        connection?.apply(latest)
    }

    /// The latest slot map: who fills each slot, by mid.
    var latest: [String: UserID?] { state.withLockedValue { $0.latest } }

    /// A new offer's maps replace the old peer's: forget the old one.
    func forget() { state.withLockedValue { $0.latest = [:] } }

    /// Called with the number of the join that ended.
    func whenSessionEnds(_ action: @escaping @Sendable (Int) -> Void) { state.withLockedValue { $0.onEnd = action } }

    /// Called with the number of the join that resumed, and whether the server kept its peer.
    func whenResumed(_ action: @escaping @Sendable (_ join: Int, _ mediaKept: Bool) -> Void) { state.withLockedValue { $0.onResume = action } }

    /// The number of the latest join (0 before the first): told before the join's call returns,
    /// so a media call made once `join` has returned belongs to it.
    var join: Int { state.withLockedValue { $0.joins } }

    /// The session object joined (again): nothing of an earlier join's maps is kept.
    func joined() {
        state.withLockedValue { state in
            state.joins += 1
            state.latest = [:]
            state.unplayable = [:]
        }
    }

    /// The session resumed on a new connection: the media peer is made again, unless the
    /// server kept it (`mediaKept`).
    func resumed(mediaKept: Bool) {
        let (action, join) = state.withLockedValue { ($0.onResume, $0.joins) }
        action?(join, mediaKept)
    }

    /// The session is over for this user: its media goes too. The connection is closed from
    /// here as well, should the session (and its media engine) be gone already.
    func sessionEnded() {
        let (onEnd, connection, join) = state.withLockedValue { state in
            defer { state.connection = nil }
            return (state.onEnd, state.connection, state.joins)
        }
        onEnd?(join)
        if let connection { Task { await connection.close() } }
    }
}
