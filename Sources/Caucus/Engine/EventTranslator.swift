import CaucusCore

/// Turns one server event into what the app hears: the event itself in the SDK's terms,
/// then what it meant for this user (moved, handles gained or lost) and for the rooms whose
/// users changed. Described from the states before and after it.
struct EventTranslator {
    let me: UserID
    let before: SessionState
    let after: SessionState
    let model: LocalModel
    let engine: SessionEngine

    func translate(_ event: Event) -> [SessionEvent] {
        var events = direct(event)
        events += consequences()
        // A move or a room's end can put this user into or out of a recorded location with no
        // recording event: it is told all the same (a user always knows whether it is recorded).
        if case .recordingChanged = event {} else if after.users[me] != nil, isRecordingMe(before) != isRecordingMe(after) {
            events.append(recordingChanged)
        }
        return events
    }

    private func isRecordingMe(_ state: SessionState) -> Bool { state.isRecorded(state.users[me]?.location ?? .main) }

    private func user(_ id: UserID) -> CaucusUser? { after.caucusUser(id) ?? before.caucusUser(id) ?? model.departed[id] }
    private func kit(_ id: RoomID) -> SubsessionKit? { after.kit(id, engine: engine) ?? before.kit(id, engine: engine) }

    /// The event itself.
    private func direct(_ event: Event) -> [SessionEvent] {
        switch event {
        case .sessionStarted, .sessionEnded:
            // The join reply carries the start; the end is reported as this user leaving.
            return []
        case .userJoined(let joined, _):
            return user(joined.id).map { [.usersJoined([$0])] } ?? []
        case .userLeft(let id, let reason, let newHost):
            // This user's own departure is told as `sessionLeft`, once the connection is done.
            var events: [SessionEvent] = id == me ? [] : user(id).map { [.usersLeft([$0], reason: reason)] } ?? []
            if let newHost, let host = user(newHost) { events.append(.hostChanged(from: user(id), to: host)) }
            return events
        case .hostChanged(let from, let to):
            return user(to).map { [.hostChanged(from: from.flatMap(user), to: $0)] } ?? []
        case .managerChanged(let id, _):
            return user(id).map { [.managerChanged($0)] } ?? []
        case .userRenamed(let id, _):
            return user(id).map { [.userRenamed($0)] } ?? []
        case .userReconnecting(let id, _), .userResumed(let id):
            return user(id).map { [.userConnectionChanged($0)] } ?? []
        case .modeChanged(let mode):
            return [.modeChanged(mode)]
        case .settingsChanged(let settings):
            return [.settingsChanged(settings)]
        case .preListChanged(let plan):
            return [.preListChanged(plan)]
        case .statusChanged(let breakout):
            return [.subsessionStatusChanged(breakout.status, after.kits(engine: engine))]
        case .usersMoved(let moves):
            return [.usersMoved(moves)]
        case .assignmentsChanged(let assignments):
            return [.assignmentsChanged(assignments.compactMap { kit($0.room) })]
        case .roomRenamed(let room, _):
            return kit(room).map { [.subsessionRenamed($0)] } ?? []
        case .invited(let invitation):
            return invited(invitation)
        case .invitationRejected(let id, let room):
            guard let who = user(id), let kit = kit(room) else { return [] }
            return [.invitationRejected(who, kit)]
        case .parentControlChanged(let control):
            return [.parentControlChanged(control)]
        case .timerChanged(let timer):
            return [.timerChanged(timer.map(BreakoutTimer.init))]
        case .timerWarning(let seconds):
            return [.timerWarning(remaining: .seconds(seconds))]
        case .helpRequested(let request):
            return [.helpRequested(HelpRequestHandler(request, engine: engine))]
        case .helpAnswered(let id, let requester, let result, let by):
            if requester == me { return [.helpRequestResult(result)] }
            return [.helpRequestAnswered(id, result: result, by: by.flatMap(user))]
        case .chatMessage(let message):
            return [.chatMessage(ChatMessage(message), from: user(message.from))]
        case .broadcast(let from, let text, _):
            return [.broadcast(text, from: from.flatMap(user))]
        case .roleView:
            return revealed()
        case .mediaChanged(let id, _, let by):
            return mediaChanged(id, by: by)
        case .voiceBroadcast(let id, let active):
            return user(id).map { [.voiceBroadcastChanged($0, active: active)] } ?? []
        case .listening(let id, let room, let active):
            guard let listener = user(id), let kit = kit(room) else { return [] }
            return [.listeningChanged(listener, kit, active: active)]
        case .recordingChanged(let set):
            // A stop the server made on its own is told once, after the change it made.
            guard let stop = set.stopped, stop != before.recording.stopped else { return [recordingChanged] }
            return [recordingChanged, .recordingStopped(locations: stop.locations, reason: stop.reason)]
        }
    }

    private var recordingChanged: SessionEvent {
        .recordingChanged(locations: after.recordedLocations, recordingMe: after.isRecorded(after.users[me]?.location ?? .main))
    }

    private func invited(_ invitation: Invitation) -> [SessionEvent] {
        guard let room = kit(invitation.room) else { return [] }
        let by = invitation.by.flatMap(user)
        var events: [SessionEvent] = []
        if invitation.users.contains(me) { events.append(.invited(to: room, by: by)) }
        if after.role(of: me)?.isManaging == true {
            events.append(.usersInvited(invitation.users.compactMap(user), to: room, by: by))
        }
        return events
    }

    /// What the event changed for this user and for the rooms.
    private func consequences() -> [SessionEvent] {
        var events: [SessionEvent] = []
        // One who is gone (removed, or the session ended) hears that, not what it implied.
        let present = after.users[me] != nil
        let wasManaging = before.role(of: me)?.isManaging ?? false
        let isManaging = after.role(of: me)?.isManaging ?? false
        if present && wasManaging != isManaging {
            events.append(.managerHandle(isManaging ? SubsessionManager(engine: engine) : nil))
        }
        let wasIn = before.users[me]?.location ?? .main
        let isIn = after.users[me]?.location ?? .main
        if present && wasIn != isIn {
            let room = isIn.roomID.flatMap(kit)
            events.append(.moved(to: room))
            events.append(.participantHandle(room.map { SubsessionParticipant(subsession: $0, engine: engine) }))
        }
        let old = Dictionary(before.rooms.map { ($0.id, $0.occupants) }, uniquingKeysWith: { first, _ in first })
        for room in after.rooms where room.occupants != (old[room.id] ?? []) {
            events.append(.subsessionUsersUpdated(SubsessionKit(room, in: after, engine: engine)))
        }
        return events
    }
}

extension EventTranslator {
    /// What a grown role's view revealed that the events had not told: the host's pre-list
    /// and the help requests waiting for a manager.
    func revealed() -> [SessionEvent] {
        var events: [SessionEvent] = []
        if after.role(of: me) == .host && before.preList != after.preList {
            events.append(.preListChanged(after.preList))
        }
        if after.role(of: me)?.isManaging == true {
            let known = Set(before.helpRequests.map(\.id))
            for request in after.helpRequests where !known.contains(request.id) {
                events.append(.helpRequested(HelpRequestHandler(request, engine: engine)))
            }
        }
        return events
    }
}
