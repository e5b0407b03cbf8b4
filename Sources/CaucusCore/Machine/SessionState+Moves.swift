/// Moving users between the main session and subsessions, and help requests.
extension SessionState {
    func openRoom(_ id: RoomID, for operation: String) throws(CaucusError) -> Room {
        guard phase == .started else { throw .wrongStatus(operation, status) }
        guard let room = room(id) else { throw .roomNotFound(id) }
        return room
    }

    func roomFull(_ room: Room) -> CaucusError {
        CaucusError(.roomFull, "'\(room.name)' is full (\(room.definition.capacity ?? 0) participants).")
    }

    /// Moves `ids` into `room`, checking capacity for those not already there.
    func moves(_ ids: [UserID], into room: Room) throws(CaucusError) -> [Event] {
        let arriving = ids.uniqued().filter { users[$0]?.location != .room(room.id) }
        guard !arriving.isEmpty else { throw CaucusError(.alreadyInRoom, "Already in '\(room.name)'.") }
        guard hasSpace(in: room, for: arriving) else { throw roomFull(room) }
        return [.usersMoved(arriving.map { UserMove(user: $0, to: .room(room.id)) })]
    }

    func decideJoinRoom(_ id: RoomID, _ context: Context) throws(CaucusError) -> [Event] {
        let me = try context.seat()
        let room = try openRoom(id, for: "join a subsession")
        if role(of: me) == .participant && !settings.selfSelectAllowed {
            throw CaucusError(.selfSelectDisabled, "Choosing a subsession is turned off; wait to be assigned.")
        }
        return try moves([me.id], into: room)
    }

    func decideReturnToMain(_ context: Context) throws(CaucusError) -> [Event] {
        let me = try context.seat()
        guard me.location != .main else { throw .notInRoom }
        if role(of: me) == .participant && !settings.returnToMainAllowed {
            throw CaucusError(.returnDisabled, "Returning to the main session on your own is turned off.")
        }
        return [.usersMoved([UserMove(user: me.id, to: .main)])]
    }

    func decideAssign(_ ids: [UserID], to id: RoomID) throws(CaucusError) -> [Event] {
        try requireUsers(ids)
        guard let index = roomIndex(id) else { throw .roomNotFound(id) }
        let room = rooms[index]
        switch phase {
        case .started:
            return try moves(ids, into: room)
        case .committed, .stopped:
            let moving = Set(ids)
            var plan = rooms.map { $0.assigned.filter { !moving.contains($0) } }
            plan[index] += ids.uniqued()
            if let capacity = room.definition.capacity, participants(among: plan[index]) > capacity {
                throw roomFull(room)
            }
            return [.assignmentsChanged(zip(rooms, plan).map { RoomAssignment(room: $0.id, users: $1) })]
        default:
            throw .wrongStatus("assign users", status)
        }
    }

    func decideReturnUser(_ id: UserID) throws(CaucusError) -> [Event] {
        let user = try existingUser(id)
        guard user.location != .main else { throw CaucusError(.notInRoom, "\(user.name) is not in a subsession.") }
        return [.usersMoved([UserMove(user: id, to: .main)])]
    }

    func decideAutoAssign(_ context: Context) throws(CaucusError) -> [Event] {
        switch phase {
        case .started:
            let candidates = users.values.filter { $0.location == .main && role(of: $0) == .participant }.map(\.id)
            let added = Distribution.balanced(
                candidates, loads: rooms.map { participantCount(in: $0) }, capacities: rooms.map(\.definition.capacity),
                entropy: context.entropy)
            let moves = zip(rooms, added).flatMap { room, ids in ids.map { UserMove(user: $0, to: .room(room.id)) } }
            guard !moves.isEmpty else { throw CaucusError(.nobodyToMove, "No participant in the main session can be placed.") }
            return [.usersMoved(moves)]
        case .committed, .stopped:
            let placed = Set(rooms.flatMap(\.assigned))
            let candidates = users.values.filter { role(of: $0) == .participant && !placed.contains($0.id) }.map(\.id)
            let added = Distribution.balanced(
                candidates, loads: rooms.map { participants(among: $0.assigned) },
                capacities: rooms.map(\.definition.capacity), entropy: context.entropy)
            guard added.contains(where: { !$0.isEmpty }) else {
                throw CaucusError(.nobodyToMove, "Every participant is already assigned.")
            }
            return [.assignmentsChanged(zip(rooms, added).map { RoomAssignment(room: $0.id, users: $0.assigned + $1) })]
        default:
            throw .wrongStatus("auto-assign users", status)
        }
    }

    func decideReturnEveryone() throws(CaucusError) -> [Event] {
        guard phase.isRunning else { throw .wrongStatus("send everyone back", status) }
        // Everyone back during a stop's countdown is the stop, now: it ends as the countdown
        // would, so the rooms can start again at once rather than after a countdown that
        // no longer counts down to anything.
        if case .stopping = phase { return [.statusChanged(stoppedSnapshot)] }
        let moves = rooms.flatMap(\.occupants).map { UserMove(user: $0, to: .main) }
        guard !moves.isEmpty else { throw CaucusError(.nobodyToMove, "Nobody is in a subsession.") }
        return [.usersMoved(moves)]
    }

    func decideRequestHelp(_ context: Context) throws(CaucusError) -> [Event] {
        let me = try context.seat()
        guard case .room(let roomID) = me.location, let room = room(roomID) else { throw .notInRoom }
        if helpRequests.contains(where: { $0.requester == me.id }) {
            throw CaucusError(.helpAlreadyRequested, "Your help request is still waiting for an answer.")
        }
        let id = HelpRequestID(nextHelpNumber)
        let someoneFree = users.values.contains {
            $0.id != me.id && role(of: $0).isManaging && $0.location == .main && $0.presence.isConnected
        }
        guard someoneFree else { return [.helpAnswered(id, requester: me.id, result: .busy, by: nil)] }
        return [
            .helpRequested(
                HelpRequest(id: id, requester: me.id, requesterName: me.name, room: roomID, roomName: room.name))
        ]
    }

    func decideAnswerHelp(_ id: HelpRequestID, _ answer: HelpAnswer, _ context: Context) throws(CaucusError) -> [Event] {
        let me = try context.seat()
        guard let request = helpRequests.first(where: { $0.id == id }) else {
            throw CaucusError(.helpRequestNotFound, "No pending help request \(id).")
        }
        switch answer {
        case .ignore:
            return [.helpAnswered(id, requester: request.requester, result: .ignored, by: me.id)]
        case .join:
            if me.location == .room(request.room) {
                return [.helpAnswered(id, requester: request.requester, result: .managerAlreadyInSubsession, by: me.id)]
            }
            return [
                .usersMoved([UserMove(user: me.id, to: .room(request.room))]),
                .helpAnswered(id, requester: request.requester, result: .managerJoining, by: me.id),
            ]
        }
    }
}
