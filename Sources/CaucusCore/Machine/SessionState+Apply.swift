/// Folding events into state. `apply` is total and checks nothing: every check happened in
/// `decide`, and a stored event must replay even if the rules have since changed.
extension SessionState {
    public mutating func apply(_ event: Event) {
        switch event {
        case .sessionStarted(let started):
            lifecycle = .live
            name = started.name
            password = started.password
            sessionKey = started.sessionKey
            createdAt = started.createdAt
            limits = started.limits
            settings = started.settings

        case .userJoined(let user, let becomesHost):
            nextUserNumber = max(nextUserNumber, user.id.rawValue + 1)
            users[user.id] = user
            if becomesHost { makeHost(user.id) }

        case .userLeft(let id, let reason, let newHost):
            // The host is never removed by anyone (`decideRemove`): a host seat that leaves as
            // removed was taken over by its own person from another device, who is not barred.
            if reason == .removed, id != hostID, let identity = users[id]?.identity { removedIdentities.insert(identity) }
            relocate(id, to: .main)
            users.removeValue(forKey: id)
            forget(id)
            if hostID == id {
                hostID = nil
                if let newHost { makeHost(newHost) }
            }

        case .sessionEnded(let reason):
            let ended = SessionState(limits: limits, settings: settings)
            let (name, createdAt, nextUser) = (name, createdAt, nextUserNumber)
            self = ended
            self.name = name
            self.createdAt = createdAt
            self.nextUserNumber = nextUser
            lifecycle = .ended(reason)

        case .hostChanged(_, let to):
            makeHost(to)
        case .managerChanged(let id, let isManager):
            users[id]?.isManager = isManager
        case .userRenamed(let id, let name):
            users[id]?.name = name
        case .userReconnecting(let id, let until):
            users[id]?.presence = .reconnecting(until: until)
        case .userResumed(let id):
            users[id]?.presence = .connected
        case .modeChanged(let mode):
            self.mode = mode
        case .settingsChanged(let settings):
            self.settings = settings

        case .preListChanged(let plan):
            preList = plan
        case .statusChanged(let snapshot):
            applyStatus(snapshot)
        case .usersMoved(let moves):
            for move in moves { relocate(move.user, to: move.to) }
        case .assignmentsChanged(let assignments):
            for assignment in assignments {
                if let index = roomIndex(assignment.room) { rooms[index].assigned = assignment.users }
            }
        case .roomRenamed(let id, let name):
            if let index = roomIndex(id) { rooms[index].name = name }
            // A waiting help request names the room its requester is in, as it is called now.
            for index in helpRequests.indices where helpRequests[index].room == id {
                helpRequests[index] = helpRequests[index].inRoom(named: name)
            }
        case .invited(let invitation):
            for user in invitation.users { invitations[user] = invitation.room }
        case .invitationRejected(let user, _):
            invitations[user] = nil
        case .parentControlChanged(let control):
            parent = control
        case .timerChanged(let timer):
            self.timer = timer
        case .timerWarning(let seconds):
            if let current = timer {
                timer = BreakoutTimer(endsAt: current.endsAt, pendingWarnings: current.pendingWarnings.filter { $0 < seconds })
            }

        case .helpRequested(let request):
            nextHelpNumber = max(nextHelpNumber, request.id.rawValue + 1)
            helpRequests.append(request)
        case .helpAnswered(let id, _, _, _):
            nextHelpNumber = max(nextHelpNumber, id.rawValue + 1)
            helpRequests.removeAll { $0.id == id }
        case .chatMessage(let message):
            nextMessageNumber = max(nextMessageNumber, message.id.rawValue + 1)
            remember(message)
        case .broadcast:
            break
        case .mediaChanged(let id, let publishing, _):
            users[id]?.publishing = publishing
        case .voiceBroadcast(let id, let active):
            if active {
                voiceBroadcaster = id
            } else if voiceBroadcaster == id {
                voiceBroadcaster = nil
            }
        case .listening(let id, let room, let active):
            if active {
                listeners[id] = room
            } else if listeners[id] == room {
                listeners.removeValue(forKey: id)
            }
        case .recordingChanged(let set):
            recording = set
        case .roleView(let view):
            // On the server this repeats the state; in a client's copy it fills in what the
            // user's grown role sees.
            if let plan = view.preList { preList = plan }
            if let requests = view.helpRequests { helpRequests = requests }
            if let pending = view.invitations {
                invitations = Dictionary(pending.map { ($0.user, $0.room) }, uniquingKeysWith: { _, last in last })
            }
        }
    }

    private mutating func makeHost(_ id: UserID) {
        hostID = id
        users[id]?.isManager = false
    }

    /// The one place a user's location changes, keeping the rooms' occupant lists in step.
    private mutating func relocate(_ id: UserID, to location: Location) {
        guard let current = users[id]?.location, current != location else { return }
        if case .room(let old) = current, let index = roomIndex(old) {
            rooms[index].occupants.removeAll { $0 == id }
        }
        if case .room(let new) = location, let index = roomIndex(new) {
            rooms[index].occupants.append(id)
            users[id]?.location = location
        } else {
            users[id]?.location = .main
        }
        invitations[id] = nil
        helpRequests.removeAll { $0.requester == id }
    }

    /// Drops a departed user from plans, assignments, invitations and help requests, and its
    /// request keys.
    private mutating func forget(_ id: UserID) {
        for index in preList.indices where preList[index].assigned.contains(id) {
            preList[index].assigned.removeAll { $0 == id }
        }
        for index in rooms.indices where rooms[index].assigned.contains(id) {
            rooms[index].assigned.removeAll { $0 == id }
        }
        invitations[id] = nil
        helpRequests.removeAll { $0.requester == id }
        requestKeys[id] = nil
    }

    private mutating func applyStatus(_ snapshot: BreakoutSnapshot) {
        phase = snapshot.phase
        timer = snapshot.timer
        parent = snapshot.parent
        if let highest = snapshot.rooms.map(\.id.rawValue).max() { nextRoomNumber = max(nextRoomNumber, highest + 1) }
        // The snapshot carries the whole move: occupants listed are in their room, everyone
        // else is in the main session.
        rooms = snapshot.rooms.map(\.emptied)
        for id in users.keys where users[id]?.location != .main { users[id]?.location = .main }
        for index in rooms.indices {
            for id in snapshot.rooms[index].occupants where users[id] != nil {
                rooms[index].occupants.append(id)
                users[id]?.location = .room(rooms[index].id)
            }
        }
        // A room that is gone is recorded no more; "every room" stays on for rooms to come.
        recording = recording.keeping(rooms)
        let open = Set(rooms.map(\.id))
        if phase == .started {
            invitations = invitations.filter { open.contains($0.value) }
            helpRequests.removeAll { request in !open.contains(request.room) || users[request.requester]?.location != .room(request.room) }
        } else {
            invitations = [:]
            helpRequests = []
        }
    }
}
