/// The create-and-invite flow: rooms with a definition, invitations, parent-room control.
extension SessionState {
    func decideCreateRooms(
        _ definition: RoomDefinition, count: Int, distribute forceJoin: Bool?, _ context: Context
    ) throws(CaucusError) -> [Event] {
        if let caller = context.caller, caller.location != .main { throw .notInParentRoom }
        if case .stopping = phase { throw .wrongStatus("create rooms", status) }
        if let capacity = definition.capacity, !(2...limits.maxRoomCapacity).contains(capacity) {
            throw CaucusError(.invalidRoomDefinition, "A room's capacity must be between 2 and \(limits.maxRoomCapacity).")
        }
        guard count >= 1 else { throw CaucusError(.invalidRoomDefinition, "Create at least one room.") }
        // A stopped list is over: new rooms start a fresh list rather than join it, so its
        // closed rooms are not reopened with them (a withdrawn or absent list has no rooms).
        let kept = phase == .stopped ? [] : rooms
        // Compared without a sum: a count near Int.max would overflow it.
        guard count <= limits.maxSubsessions - kept.count else { throw tooManySubsessions }

        var taken = Set(kept.map { SessionName.key($0.name) })
        var number = kept.count
        var created: [Room] = []
        for offset in 0..<count {
            var name: String
            repeat {
                number += 1
                name = "Room \(number)"
            } while !taken.insert(SessionName.key(name)).inserted
            created.append(Room(id: RoomID(nextRoomNumber + offset), name: name, definition: definition))
        }

        // Rooms made this way are open at once, as the create-and-invite flow has them; rooms
        // added to a committed (not yet started) plan wait for its start, and so do the users
        // distributed to them, as assignments.
        let newPhase: BreakoutPhase = phase == .committed ? .committed : .started
        var invitations: [Event] = []
        if let forceJoin {
            // An unstarted plan keeps the users it already expects; open rooms take anyone in
            // the main session.
            let placed = newPhase == .committed ? Set(kept.flatMap(\.assigned)) : []
            let candidates = users.values
                .filter { $0.location == .main && role(of: $0) == .participant && !placed.contains($0.id) }.map(\.id)
            let added = Distribution.balanced(
                candidates, loads: Array(repeating: 0, count: count), capacities: created.map(\.definition.capacity),
                entropy: context.entropy)
            for index in created.indices where !added[index].isEmpty {
                if newPhase == .committed {
                    created[index].assigned = added[index]
                } else if forceJoin {
                    created[index].occupants = added[index]
                } else {
                    invitations.append(.invited(Invitation(users: added[index], room: created[index].id, by: context.callerID)))
                }
            }
        }
        let parent = phase.isRunning ? parent : .open
        return [.statusChanged(BreakoutSnapshot(phase: newPhase, rooms: kept + created, timer: timer, parent: parent))]
            + invitations
    }

    func decideInvite(_ ids: [UserID], to id: RoomID, forceJoin: Bool, _ context: Context) throws(CaucusError) -> [Event] {
        if let caller = context.caller, caller.location != .main { throw .notInParentRoom }
        try requireUsers(ids)
        let room = try openRoom(id, for: "invite users")
        if forceJoin { return try moves(ids, into: room) }
        let invitees = ids.uniqued().filter { users[$0]?.location != .room(id) }
        guard !invitees.isEmpty else { throw CaucusError(.alreadyInRoom, "Everyone named is already in '\(room.name)'.") }
        return [.invited(Invitation(users: invitees, room: id, by: context.callerID))]
    }

    private func invitation(to id: RoomID, for user: SessionUser) throws(CaucusError) -> RoomID {
        guard invitations[user.id] == id else {
            throw CaucusError(.invitationNotFound, "You have no invitation to subsession \(id).")
        }
        return id
    }

    func decideAcceptInvitation(_ id: RoomID, _ context: Context) throws(CaucusError) -> [Event] {
        let me = try context.seat()
        _ = try invitation(to: id, for: me)
        return try moves([me.id], into: try openRoom(id, for: "accept an invitation"))
    }

    func decideRejectInvitation(_ id: RoomID, _ context: Context) throws(CaucusError) -> [Event] {
        let me = try context.seat()
        return [.invitationRejected(me.id, room: try invitation(to: id, for: me))]
    }

    func decidePause(_ paused: Bool) throws(CaucusError) -> [Event] {
        guard phase.isRunning else { throw .wrongStatus(paused ? "pause the main session" : "resume the main session", status) }
        if paused && parent.paused { throw CaucusError(.parentAlreadyPaused, "The main session is already paused.") }
        if !paused && !parent.paused { throw CaucusError(.parentNotPaused, "The main session is not paused.") }
        var control = parent
        control.paused = paused
        return [.parentControlChanged(control)]
    }

    func decideMute(_ muted: Bool, audio: Bool, video: Bool) throws(CaucusError) -> [Event] {
        guard phase.isRunning else { throw .wrongStatus(muted ? "mute the main session" : "unmute the main session", status) }
        var control = parent
        if audio { control.audioMuted = muted }
        if video { control.videoMuted = muted }
        guard control != parent else {
            throw CaucusError(
                .nothingToMute, "Nothing to change: name audio and/or video that are not already \(muted ? "muted" : "unmuted").")
        }
        return [.parentControlChanged(control)]
    }

    func decideDestroyAll() throws(CaucusError) -> [Event] {
        guard !rooms.isEmpty else { throw .wrongStatus("destroy all rooms", status) }
        if case .stopping = phase { throw .wrongStatus("destroy all rooms", status) }
        // No room is left, so the status is `none`, as before any room existed: `withdrawn`
        // names the host taking back a committed or stopped list, which this is not.
        return [.statusChanged(BreakoutSnapshot(phase: .none, rooms: [], timer: nil, parent: .open))]
    }
}
