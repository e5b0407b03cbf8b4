/// The plan-and-commit flow: the host's pre-list, commit and withdraw, start and stop.
extension SessionState {
    func decideAddToPreList(_ names: [String]) throws(CaucusError) -> [Event] {
        guard !names.isEmpty else { throw CaucusError(.roomNameEmpty, "Give at least one subsession name.") }
        var taken = Set(preList.map { SessionName.key($0.name) })
        for name in names {
            try validateRoomName(name)
            guard taken.insert(SessionName.key(name)).inserted else {
                throw CaucusError(.duplicateRoomName, "The pre-list already has a subsession named '\(name)'.")
            }
        }
        guard taken.count <= limits.maxSubsessions else { throw tooManySubsessions }
        return [.preListChanged(preList + names.map { PlannedRoom(name: $0) })]
    }

    func validateRoomName(_ name: String) throws(CaucusError) {
        try NameRule.validate(name, "The subsession name", emptyCode: .roomNameEmpty)
        if name.limitLength > limits.maxRoomNameLength {
            throw .tooLong(.roomNameTooLong, "The subsession name", limit: limits.maxRoomNameLength)
        }
    }

    var tooManySubsessions: CaucusError {
        CaucusError(.tooManySubsessions, "A session has at most \(limits.maxSubsessions) subsessions.")
    }

    func preListIndex(_ name: String) throws(CaucusError) -> Int {
        guard let index = preList.firstIndex(where: { SessionName.matches($0.name, name) }) else {
            throw CaucusError(.notInPreList, "The pre-list has no subsession named '\(name)'.")
        }
        return index
    }

    func decideRemoveFromPreList(_ names: [String]) throws(CaucusError) -> [Event] {
        guard !names.isEmpty else { throw CaucusError(.roomNameEmpty, "Give at least one subsession name.") }
        var remaining = preList
        for name in names {
            let index = try preListIndex(name)
            remaining.removeAll { $0.name == preList[index].name }
        }
        return [.preListChanged(remaining)]
    }

    func decidePreAssign(_ ids: [UserID], to name: String) throws(CaucusError) -> [Event] {
        try requireUsers(ids)
        let target = try preListIndex(name)
        let moving = Set(ids)
        var plan = preList
        for index in plan.indices { plan[index].assigned.removeAll { moving.contains($0) } }
        plan[target].assigned += ids.uniqued()
        return [.preListChanged(plan)]
    }

    func requireUsers(_ ids: [UserID]) throws(CaucusError) {
        guard !ids.isEmpty else { throw CaucusError(.emptyUserList, "Name at least one user.") }
        for id in ids where users[id] == nil { throw .userNotFound(id) }
    }

    func decideCommit() throws(CaucusError) -> [Event] {
        guard !phase.isRunning else { throw .wrongStatus("commit the subsession list", status) }
        guard !preList.isEmpty else { throw CaucusError(.preListEmpty, "The pre-list is empty; add subsessions first.") }
        let committed = preList.enumerated().map { offset, planned in
            Room(id: RoomID(nextRoomNumber + offset), name: planned.name, assigned: planned.assigned)
        }
        return [.statusChanged(BreakoutSnapshot(phase: .committed, rooms: committed, timer: nil, parent: .open))]
    }

    func decideWithdraw() throws(CaucusError) -> [Event] {
        guard phase == .committed || phase == .stopped else {
            throw .wrongStatus("withdraw the subsession list", status)
        }
        return [.statusChanged(BreakoutSnapshot(phase: .withdrawn, rooms: [], timer: nil, parent: .open))]
    }

    func decideStart(_ options: StartOptions, _ context: Context) throws(CaucusError) -> [Event] {
        guard phase == .committed || phase == .stopped, !rooms.isEmpty else {
            throw .wrongStatus("start subsessions", status)
        }
        let timer = try options.durationSeconds.map { (seconds) throws(CaucusError) in
            try validateDuration(seconds)
            return BreakoutTimer.arming(
                endsAt: context.now.adding(seconds: seconds), now: context.now, warnings: settings.timerWarningSeconds)
        }
        // Each present user goes to the first room that expects them.
        var expected = Set<UserID>()
        var placement = rooms.map { $0.assigned.filter { users[$0] != nil && expected.insert($0).inserted } }
        if options.autoAssign {
            let placed = Set(placement.joined())
            let candidates = users.values.filter { $0.location == .main && role(of: $0) == .participant && !placed.contains($0.id) }
            let added = Distribution.balanced(
                candidates.map(\.id), loads: placement.map { participants(among: $0) },
                capacities: rooms.map(\.definition.capacity), entropy: context.entropy)
            placement = zip(placement, added).map { $0 + $1 }
        }
        let autoMove = options.autoMove ?? settings.autoMoveOnStart
        let opened = zip(rooms, placement).map { room, users in
            var room = room
            room.occupants = autoMove ? users : []
            return room
        }
        var events: [Event] = [.statusChanged(BreakoutSnapshot(phase: .started, rooms: opened, timer: timer, parent: .open))]
        if !autoMove {
            for (room, invitees) in zip(rooms, placement) where !invitees.isEmpty {
                events.append(.invited(Invitation(users: invitees, room: room.id, by: context.callerID)))
            }
        }
        return events
    }

    func validateDuration(_ seconds: Int) throws(CaucusError) {
        guard (1...limits.maxTimerSeconds).contains(seconds) else {
            throw CaucusError(.invalidDuration, "A duration must be between 1 and \(limits.maxTimerSeconds) seconds.")
        }
    }

    func decideStop(countdown: Int?, _ context: Context) throws(CaucusError) -> [Event] {
        guard phase == .started else { throw .wrongStatus("stop subsessions", status) }
        let seconds = countdown ?? settings.countdownSeconds
        guard (0...limits.maxCountdownSeconds).contains(seconds) else {
            throw CaucusError(.invalidDuration, "A countdown must be between 0 and \(limits.maxCountdownSeconds) seconds.")
        }
        return stopping(countdown: seconds, now: context.now)
    }

    func decideBroadcast(_ text: String, _ context: Context) throws(CaucusError) -> [Event] {
        guard phase.isRunning else { throw .wrongStatus("broadcast", status) }
        try validateMessage(text)
        return [.broadcast(from: context.callerID, text: text, at: context.now)]
    }

    func validateMessage(_ text: String) throws(CaucusError) {
        if text.isBlank { throw CaucusError(.messageEmpty, "The message is empty.") }
        if text.limitLength > limits.maxChatLength {
            throw .tooLong(.messageTooLong, "The message", limit: limits.maxChatLength)
        }
    }

    func decideExtendTimer(_ seconds: Int, _ context: Context) throws(CaucusError) -> [Event] {
        guard phase == .started, let timer else { throw CaucusError(.noTimer, "No breakout timer is running.") }
        try validateDuration(seconds)
        let endsAt = timer.endsAt.adding(seconds: seconds)
        guard context.now.secondsUntil(endsAt) <= limits.maxTimerSeconds else {
            throw CaucusError(.invalidDuration, "A timer runs at most \(limits.maxTimerSeconds) seconds.")
        }
        return [.timerChanged(.arming(endsAt: endsAt, now: context.now, warnings: settings.timerWarningSeconds))]
    }
}

extension Sequence where Element: Hashable {
    /// The elements in order, each once.
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
