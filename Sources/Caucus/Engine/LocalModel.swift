import CaucusCore
import CaucusProtocol

/// This client's copy of the session: the server's own `SessionState` as this user may see it
/// (`visible(to:)`), restored from a snapshot and then advanced by each event with the same
/// `apply` the server uses, so it cannot drift from the server's. It holds what this user may
/// see: the pre-list only for the host, help requests and others' invitations only for
/// managers. A role that grows brings its view as an event (`roleView`), so nothing here asks.
struct LocalModel: Sendable {
    let me: UserID
    private(set) var state: SessionState
    /// The last event `state` includes, delivered to the app (or included in the snapshot it
    /// started from).
    private(set) var seq: Int
    /// The events received since the last check with the server that none went missing.
    private(set) var missedEventCheck: MissedEventCheck
    /// Users who are gone, as last seen: for describing departures and their old messages.
    private(set) var departed: [UserID: CaucusUser] = [:]

    init(snapshot: SessionSnapshot) {
        me = snapshot.you
        state = SessionState(restoring: snapshot)
        seq = snapshot.seq
        missedEventCheck = MissedEventCheck(after: snapshot.seq)
    }

    // MARK: - Events

    /// Takes one event. Returns the states before and after it, to describe it by, or nil if it
    /// was already delivered (or is included in the snapshot the session began from).
    mutating func absorb(_ event: SequencedEvent) -> (before: SessionState, after: SessionState)? {
        guard event.seq > seq else { return nil }
        seq = event.seq
        missedEventCheck.receive(event.seq)
        rememberDepartures(event.event, in: state)
        let before = state
        state.apply(event.event)
        return (before, state)
    }

    /// Counts an event this client cannot read (a type from a newer server) as seen, so a
    /// resume does not ask for it again.
    mutating func skip(past seq: Int) {
        guard seq > self.seq else { return }
        self.seq = seq
        missedEventCheck.receive(seq)
    }

    /// Takes the server's count of the events it sent (the reply to a `ping`).
    mutating func settleMissedEventCheck(asked: Int, seq: Int, sent: Int?) -> MissedEventCheck.Verdict {
        missedEventCheck.settle(asked: asked, seq: seq, sent: sent)
    }

    /// Starts over from a fresh snapshot (a resume too old to replay): the events in between
    /// are not delivered.
    mutating func reset(to snapshot: SessionSnapshot) {
        for user in state.users.values where !snapshot.users.contains(where: { $0.id == user.id }) {
            departed[user.id] = CaucusUser(user, role: state.role(of: user))
        }
        state = SessionState(restoring: snapshot)
        seq = snapshot.seq
        missedEventCheck = MissedEventCheck(after: snapshot.seq)
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
