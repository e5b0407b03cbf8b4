/// Who receives an event. Resolved against the state *after* the event is applied, so a
/// joiner hears of its own join and a leaver is no longer a recipient.
public enum Audience: Hashable, Sendable {
    case everyone
    /// Everyone in one room (the main session or a subsession), and no one elsewhere.
    case location(Location)
    /// The host and the managers.
    case managers
    case host
    case users([UserID])
    /// The host, the managers, and these users.
    case managersAnd([UserID])
}

extension SessionState {
    public func audience(of event: Event) -> Audience {
        switch event {
        case .preListChanged:
            return .host
        case .invited(let invitation):
            return .managersAnd(invitation.users)
        case .invitationRejected(let user, _):
            return .managersAnd([user])
        case .helpRequested:
            return .managers
        case .roleView(let view):
            return .users([view.user])
        case .helpAnswered(_, let requester, _, _):
            return .managersAnd([requester])
        case .chatMessage(let message):
            switch message.scope {
            case .room(let location): return .location(location)
            case .direct(let to): return .users(message.from == to ? [to] : [message.from, to])
            }
        case .sessionStarted, .userJoined, .userLeft, .sessionEnded, .hostChanged, .managerChanged, .userRenamed,
            .userReconnecting, .userResumed, .modeChanged, .settingsChanged, .statusChanged, .usersMoved,
            .assignmentsChanged, .roomRenamed, .parentControlChanged, .timerChanged, .timerWarning, .broadcast:
            return .everyone
        case .mediaChanged:
            // Everyone's snapshot shows what every user publishes, as it shows where they are.
            return .everyone
        case .voiceBroadcast, .listening:
            // Every room hears the broadcaster, so every room is told who it is. A listener is
            // never silent: its room must know (the room's users above all), and telling
            // everyone keeps every snapshot the same on this point.
            return .everyone
        case .recordingChanged:
            // Everyone in a recorded location must know it (consent), and everyone else may
            // be moved into one: every snapshot carries the same set.
            return .everyone
        }
    }

    /// The users an audience names, in join order, among those present.
    public func recipients(of audience: Audience) -> [UserID] {
        switch audience {
        case .everyone:
            return Array(users.keys)
        case .location(let location):
            switch location {
            case .main: return users.values.lazy.filter { $0.location == .main }.map(\.id)
            case .room(let id): return rooms.first { $0.id == id }?.occupants ?? []
            }
        case .managers:
            return users.values.lazy.filter { self.role(of: $0).isManaging }.map(\.id)
        case .host:
            return hostID.map { [$0] } ?? []
        case .users(let ids):
            return ids.filter { users[$0] != nil }
        case .managersAnd(let ids):
            let named = Set(ids)
            return users.values.lazy.filter { named.contains($0.id) || self.role(of: $0).isManaging }.map(\.id)
        }
    }

    public func recipients(of event: Event) -> [UserID] { recipients(of: audience(of: event)) }
}
