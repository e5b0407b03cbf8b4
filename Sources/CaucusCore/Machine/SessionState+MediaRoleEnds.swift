/// A voice broadcast and a listen-in end by themselves when what allowed them goes: after a
/// command's events, each one that no longer holds gets its ending event, so clients are told
/// and `apply` stays a plain fold. A broadcast ends when its broadcaster leaves (by choice,
/// removal or timeout) or loses the host or manager role; a listen-in ends on any move of its
/// listener, when its room closes (the breakout stops, the room is destroyed), or when the
/// listener leaves or loses the role. The end of the session ends both with everything else.
extension SessionState {
    func endingMediaRoles(after events: [Event]) -> [Event] {
        // Most sessions have neither, and most events touch neither: only then pay for a copy.
        guard voiceBroadcaster != nil || !listeners.isEmpty, events.contains(where: \.mayEndMediaRoles) else { return events }
        var after = self
        for event in events { after.apply(event) }
        guard after.isLive else { return events }
        var ends: [Event] = []
        if let id = after.voiceBroadcaster, after.role(of: id)?.isManaging != true {
            ends.append(.voiceBroadcast(id, active: false))
        }
        for (id, room) in after.listeners where !after.mayListen(id, to: room, from: users[id]?.location) {
            ends.append(.listening(id, room: room, active: false))
        }
        return events + ends
    }

    /// Whether `id`, who was at `location` before the events, may still listen in to `room`.
    private func mayListen(_ id: UserID, to room: RoomID, from location: Location?) -> Bool {
        guard let user = users[id], role(of: user).isManaging else { return false }
        guard user.location == location else { return false }
        return phase.isRunning && self.room(room) != nil
    }
}

extension Event {
    /// Whether the event can take a role away (a host who joins takes it from the last one),
    /// take a user away, move one, or close a room.
    var mayEndMediaRoles: Bool {
        switch self {
        case .userLeft, .hostChanged, .managerChanged, .statusChanged, .usersMoved: true
        case .userJoined(_, let becomesHost): becomesHost
        default: false
        }
    }
}
