import CaucusCore
import CaucusProtocol

/// This client's copy of the session: the server's own `SessionState`, rebuilt from a
/// snapshot and then advanced by each event with the same `apply` the server uses, so it
/// cannot drift from the server's. It holds what this user may see: the pre-list only for
/// the host, help requests only for managers, invitations only this user's own (until it
/// manages).
struct LocalModel: Sendable {
    let me: UserID
    private(set) var state: SessionState
    /// The last event `state` includes.
    private(set) var appliedSeq: Int
    /// The last event delivered to the app (or included in the snapshot it started from).
    private(set) var deliveredSeq: Int
    /// After a refresh: the state from before it, advanced by the events the refreshed
    /// snapshot already included, so that each can still be described as it arrives.
    private var shadow: SessionState?
    /// Users who are gone, as last seen: for describing departures and their old messages.
    private(set) var departed: [UserID: CaucusUser] = [:]

    init(snapshot: SessionSnapshot) {
        me = snapshot.you
        state = Self.rebuild(snapshot)
        appliedSeq = snapshot.seq
        deliveredSeq = snapshot.seq
    }

    /// A `SessionState` equal, in everything this user may see, to the one the server took
    /// the snapshot of: the snapshot replayed as the events that would have made it.
    static func rebuild(_ snapshot: SessionSnapshot) -> SessionState {
        var events: [Event] = [
            .sessionStarted(
                SessionStarted(
                    name: snapshot.name, password: nil, sessionKey: nil, createdAt: Instant(milliseconds: 0),
                    limits: snapshot.limits, settings: snapshot.settings))
        ]
        for user in snapshot.users {
            let seat = SessionUser(
                id: user.id, name: user.name, identity: user.identity, claim: user.role == .host ? .host : .participant,
                isManager: user.role == .manager, presence: user.presence, joinedAt: user.joinedAt)
            events.append(.userJoined(seat, becomesHost: user.id == snapshot.hostID))
        }
        events.append(.modeChanged(snapshot.mode))
        if let plan = snapshot.preList { events.append(.preListChanged(plan)) }
        // The committed list with its occupants places everyone, as it does on the server.
        events.append(.statusChanged(snapshot.breakout))
        if let room = snapshot.invitation { events.append(.invited(Invitation(users: [snapshot.you], room: room, by: nil))) }
        for request in snapshot.helpRequests ?? [] { events.append(.helpRequested(request)) }
        return SessionState(limits: snapshot.limits, settings: snapshot.settings, replaying: events)
    }

    // MARK: - Events

    /// Whether a refresh is waiting for events it already included.
    var isSettlingRefresh: Bool { shadow != nil }

    /// Takes one event. Returns the states before and after it, to describe it by, or nil if it
    /// was already delivered (or is included in the snapshot the session began from).
    mutating func absorb(_ event: SequencedEvent) -> (before: SessionState, after: SessionState)? {
        guard event.seq > deliveredSeq else { return nil }
        deliveredSeq = event.seq
        if event.seq <= appliedSeq {
            // Already in a refreshed state: advance the shadow only, to describe it.
            guard var old = shadow else { return (state, state) }
            rememberDepartures(event.event, in: old)
            let before = old
            old.apply(event.event)
            shadow = old
            return (before, old)
        }
        rememberDepartures(event.event, in: state)
        let before = state
        state.apply(event.event)
        appliedSeq = event.seq
        return (before, state)
    }

    /// Replaces the state by a newer snapshot of the same seat (asked for when this user's
    /// role grew, to learn what the new role may see). Events up to the snapshot's seq that
    /// have not arrived yet are still delivered, but no longer applied.
    mutating func refresh(with snapshot: SessionSnapshot) {
        guard snapshot.seq >= appliedSeq else { return }
        if shadow == nil { shadow = state }
        state = Self.rebuild(snapshot)
        appliedSeq = snapshot.seq
    }

    /// Ends a refresh once every event it included has been delivered (or a later one is
    /// about to be). Returns the states before and after it, to describe what it revealed.
    mutating func settleRefresh(before incoming: Int? = nil) -> (before: SessionState, after: SessionState)? {
        guard let old = shadow else { return nil }
        guard deliveredSeq >= appliedSeq || (incoming ?? 0) > appliedSeq else { return nil }
        shadow = nil
        return (old, state)
    }

    /// Starts over from a fresh snapshot (a resume too old to replay): the events in between
    /// are not delivered.
    mutating func reset(to snapshot: SessionSnapshot) {
        for user in state.users.values where !snapshot.users.contains(where: { $0.id == user.id }) {
            departed[user.id] = CaucusUser(user, role: state.role(of: user))
        }
        state = Self.rebuild(snapshot)
        appliedSeq = snapshot.seq
        deliveredSeq = snapshot.seq
        shadow = nil
    }

    private mutating func rememberDepartures(_ event: Event, in state: SessionState) {
        switch event {
        case .userLeft(let id, _, _):
            if let user = state.caucusUser(id) { departed[id] = user }
        case .sessionEnded:
            for user in state.users.values { departed[user.id] = CaucusUser(user, role: state.role(of: user)) }
        default:
            break
        }
    }

    // MARK: - Lookups

    /// A user present now, or as last seen if gone.
    func user(_ id: UserID) -> CaucusUser? { state.caucusUser(id) ?? departed[id] }

    var myself: CaucusUser? { user(me) }
}
