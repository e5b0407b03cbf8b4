/// Editing rooms and the plan after the fact: renaming a planned or a committed room, and
/// taking users out of the plan. Each changes only what it names: a renamed room keeps its id,
/// occupants, assignments, invitations, timer and chat; users taken out of the plan stay where
/// they are.
extension SessionState {
    /// A planned room is known by its name (the pre-list has no ids), so its new name must not
    /// be another planned room's, as when it was added.
    func decideRenamePlannedRoom(_ name: String, to newName: String) throws(CaucusError) -> [Event] {
        let index = try preListIndex(name)
        try validateRoomName(newName)
        let key = SessionName.key(newName)
        if preList.indices.contains(where: { $0 != index && SessionName.key(preList[$0].name) == key }) {
            throw CaucusError(.duplicateRoomName, "The pre-list already has a subsession named '\(newName)'.")
        }
        var plan = preList
        plan[index].name = newName
        return [.preListChanged(plan)]
    }

    /// A committed room is known by its id, in any status while it exists. Committed names are
    /// unique (commit takes them from the pre-list, created rooms take the next free
    /// "Room N"), and a rename keeps them so, so that a room's name says which room it is.
    func decideRenameRoom(_ id: RoomID, to newName: String) throws(CaucusError) -> [Event] {
        guard let index = roomIndex(id) else { throw .roomNotFound(id) }
        try validateRoomName(newName)
        let key = SessionName.key(newName)
        if rooms.indices.contains(where: { $0 != index && SessionName.key(rooms[$0].name) == key }) {
            throw CaucusError(.duplicateRoomName, "The committed list already has a subsession named '\(newName)'.")
        }
        return [.roomRenamed(id, name: newName)]
    }

    /// The plan is the pre-list's assignments and the committed rooms' `assigned` lists; both
    /// lose the users named. Nobody moves: a user in a room stays there. Naming only users the
    /// plan does not hold is refused (`notAssigned`), so a client learns its view was stale;
    /// among several users, those not in the plan are simply not in it afterwards either.
    func decideUnassign(_ ids: [UserID]) throws(CaucusError) -> [Event] {
        try requireUsers(ids)
        let leaving = Set(ids)
        var events: [Event] = []
        if preList.contains(where: { $0.assigned.contains(where: leaving.contains) }) {
            let plan = preList.map { planned in
                var planned = planned
                planned.assigned.removeAll { leaving.contains($0) }
                return planned
            }
            events.append(.preListChanged(plan))
        }
        if rooms.contains(where: { $0.assigned.contains(where: leaving.contains) }) {
            let assignments = rooms.map { RoomAssignment(room: $0.id, users: $0.assigned.filter { !leaving.contains($0) }) }
            events.append(.assignmentsChanged(assignments))
        }
        guard !events.isEmpty else {
            throw CaucusError(.notAssigned, "None of the users named is in the plan.")
        }
        return events
    }
}
